-- Request traces (timestamps with input/output lengths) are uploaded and stored once by hash, as
-- datasets are: a profile's `trace-asset` workload names one.
ALTER TYPE "AssetKind" ADD VALUE 'trace';
