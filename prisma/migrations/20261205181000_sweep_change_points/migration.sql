-- Change points of capacity searches: a capacity or cost series has one value per finished search, so
-- its change points name sweeps where a run metric's name runs. Each row names exactly one of the two.
ALTER TABLE "change_points" ALTER COLUMN "run_id" DROP NOT NULL,
ADD COLUMN "sweep_id" UUID,
ADD COLUMN "previous_sweep_id" UUID,
ADD COLUMN "end_sweep_id" UUID;

-- CreateIndex
CREATE INDEX "change_points_sweep_id_idx" ON "change_points"("sweep_id");

-- AddForeignKey
ALTER TABLE "change_points" ADD CONSTRAINT "change_points_sweep_id_fkey" FOREIGN KEY ("sweep_id") REFERENCES "sweeps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A run series' change point starts at a run, a sweep series' at a sweep: never both, never neither.
ALTER TABLE "change_points" ADD CONSTRAINT "change_points_one_start" CHECK (("run_id" IS NULL) <> ("sweep_id" IS NULL));
