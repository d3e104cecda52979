-- CreateIndex: the latest run of each profile and serving-configuration version (the API's
-- /metrics) is one index probe per pair, however long ago the version was replaced.
CREATE INDEX "runs_profile_id_config_id_started_at_idx" ON "runs"("profile_id", "config_id", "started_at");
