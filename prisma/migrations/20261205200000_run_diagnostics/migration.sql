-- Why a run was as fast as it was: figures derived from the per-token record (any server) and from the
-- server's own metrics scraped while it measured (servers that expose them). Each is one JSON object
-- (ClientDiagnostics, ServerDiagnostics in @teapot/contracts); a figure that could not be derived is
-- absent from it, never zero.
ALTER TABLE "runs" ADD COLUMN "client_diagnostics" JSONB,
ADD COLUMN "server_diagnostics" JSONB;
