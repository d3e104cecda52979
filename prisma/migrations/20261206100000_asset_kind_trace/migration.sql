-- Request traces (timestamps with input/output lengths) are uploaded and stored once by hash, as
-- datasets are: a profile's `trace-asset` workload names one. AFTER 'dataset': the enum's order (which
-- the drift check compares) then does not depend on whether another migration added a value first.
ALTER TYPE "AssetKind" ADD VALUE 'trace' AFTER 'dataset';
