import { GPU_PRESETS, MODEL_PRESETS, WEIGHT_QUANTS } from '@teapot/hardware';
import { SLO_PRESETS, SWEEP_LIMITS } from '@teapot/contracts';
import { BENCH_DEFAULTS } from './args';
import { AUTO_REQUESTS, SWEEP_DEFAULTS } from './sweep-args';
import { LATENCY_STATS, THROUGHPUT_METRICS } from './slo';

const d = BENCH_DEFAULTS;

export const USAGE = `Usage: teapot bench [flags]     (teapot bench --help for the flags)
       teapot sweep [flags]     (teapot sweep --help)
       teapot deploy [flags]    (teapot deploy --help: announce a deployment to a teapot API, gate on its verdict)
       teapot verdict <id>      (teapot verdict --help)
`;

export const BENCH_HELP = `Usage: teapot bench [flags]

Benchmarks an OpenAI-compatible streaming endpoint and prints TTFT, TPOT, ITL and E2E percentiles.
Without --url it starts the built-in simulated endpoint (${d.simulator.gpu} / ${d.simulator.model} / ${d.simulator.quant}).

Target
  --url URL                 base URL up to the version, e.g. http://127.0.0.1:8000/v1 (a bare host means /v1)
  --model NAME              model to request (default: the first one /v1/models lists)
  --api chat|completions    endpoint to stream from (default chat)
  --header 'Name: value'    extra request header, repeatable; values are never printed
  --api-key KEY             sent as Authorization: Bearer KEY (default: $OPENAI_API_KEY when --url is set)

Load (one of)
  --concurrency N           closed loop: N requests in flight (default ${d.concurrency})
  --rate R                  open loop: R requests/s from precomputed send times
    --arrival A             poisson (default), gamma or constant
    --burstiness B          gamma shape; < 1 is burstier, 1 is Poisson (implies --arrival gamma)
    --max-concurrency N     cap on requests in flight; later arrivals wait (TTFT/E2E "from schedule" count the wait)
    --busy-poll             the measuring thread never sleeps until every arrival is sent: sends keep their schedule
                            where a sleeping thread wakes late (virtual machines), at the cost of one CPU core
  --trace FILE              replay a trace (JSON lines, or CSV with a header row): each line's timestamp is its send time (open loop), its lengths
                            the prompt and output; teapot {"timestamp_ms","input_tokens","output_tokens"},
                            Mooncake {"timestamp" (ms),"input_length","output_length"}, BurstGPT {"Timestamp" (s),
                            "Request tokens","Response tokens"} or Azure {"TIMESTAMP" (datetime or s),
                            "ContextTokens","GeneratedTokens"}; times relative to the first line
    --trace-speed X         replay X times as fast (default 1); --requests/--duration cut the trace
Length (one of)
  --requests N              measured requests, warm-up excluded (default ${d.requests})
  --duration S              stop issuing after S seconds; requests still running are left out
  --warmup N                requests sent first and left out of the results (default 0)

Workload
  --input-tokens N          synthetic prompt length (default ${d.inputTokens})
  --output-tokens N         output length (default ${d.outputTokens})
  --dataset FILE            prompts from a file, one JSON object per line: {"prompt": "...", "output_tokens": N} (N optional)
  --dataset-format F        prompts (default), sharegpt ("conversations" of from/value) or openai ("messages"):
                            a conversation is a session, every turn sent (e.g. packages/measure/datasets/)
    --min-input-tokens N    drop conversations whose first prompt is shorter (tokens = words)
    --max-input-tokens N    cut a conversation before a turn whose prompt, history included, is longer
    --max-output-tokens N   ... or whose recorded answer is longer
    --max-turns N           at most N turns of each conversation
    --sample N              N conversations drawn with --seed (default all, shuffled)
  --multi-turn N            sessions of N turns: each resends the history plus --input-tokens new ones
    --system-tokens N       a system prompt of N tokens, the same for every session, opens each
  --think-time MS           mean pause before a session's next turn (sessions: --multi-turn or a conversation dataset)
    --think-time-distribution exponential (default) or constant
  --actual-answers          send the model's own answer back (else a synthetic answer of its length, or the recorded one)
  --shared-prefix P,L,M     P prefixes of L tokens, each used by M requests, interleaved; --input-tokens is each suffix
  --tokenizer FILE          the model's tokenizer.json: prompts exactly --input-tokens of its tokens, output
                            counted with it when the server reports no usage (the built-in simulator uses it too)
  --no-force-length         do not ask the server for exactly --output-tokens (ignore_eos / min_tokens)
  --seed N                  reproducible prompts, lengths and arrival times
  --timeout S               whole-request timeout in seconds
  --transport http1|undici  how streams are read (default http1, teapot's own reader: timestamps each read
                            first, least CPU per chunk); undici for comparison (see the accuracy bench)

Gates and output
  --slo NAME=VALUE          repeatable; exit code 2 when one is missed. Latency ceilings in ms:
                            {ttft,tpot,itl,e2e}_{${LATENCY_STATS.join(',')}}_ms, e.g. --slo itl_p99_ms=50;
                            throughput floors: ${Object.keys(THROUGHPUT_METRICS).join(', ')}.
                            Goodput counts the requests within every latency ceiling (the loosest per metric).
  --json PATH|-             write the full result as JSON (- for stdout; the table then goes to stderr)
  --raw                     with --json: include every request's raw per-chunk record

Built-in simulator (without --url)
  --sim-gpu G               ${Object.keys(GPU_PRESETS).join(', ')} (default ${d.simulator.gpu})
  --sim-model M             ${Object.keys(MODEL_PRESETS).join(', ')} (default ${d.simulator.model})
  --sim-quant Q             ${WEIGHT_QUANTS.join(', ')} (default ${d.simulator.quant})
  --sim-tp N                tensor parallelism, GPUs per replica (default ${d.simulator.tp})
  --sim-max-batch N         sequences decoded together (continuous batching limit)
  --sim-chunked-prefill on|off  off (default): a new prompt's prefill stalls the running streams

Exit codes: 0 ok, 1 error (bad flags, every request failed), 2 an SLO was missed.
`;

export const SWEEP_HELP = `Usage: teapot sweep [flags]

Measures an endpoint at several loads, each point a \`teapot bench\` run, and finds its capacity at an
SLO: the highest request rate (or concurrency) whose runs meet every target. Prints a line per point,
then the points with tokens/s per user and per GPU (vLLM's Pareto axes), cost per million output
tokens (with --usd-per-gpu-hour), the frontier, the capacity and why the sweep stopped.

Loads (one of)
  --points 1,2,4,8          measure these loads in order; stops after an over-saturated one
  --lowest L --highest H    search [L, H] for capacity (default ${SWEEP_DEFAULTS.lowest} to ${SWEEP_DEFAULTS.highest}); needs an SLO
    --tolerance T           relative width of the final bracket (default ${SWEEP_LIMITS.tolerance.default})
    --max-points N          at most N points (default ${SWEEP_LIMITS.maxPoints.default})
  --dimension rate|concurrency  a point's load is arrivals/s (open loop, --arrival as in bench) or streams (default rate)

SLO
  --slo-preset NAME         ${Object.keys(SLO_PRESETS).join(', ')}
  --slo METRIC_pNN_ms=N     a target of its own (METRIC ttft|tpot|itl|e2e, NN 50|90|95|99|999), repeatable
  --min-good-share S        share (0-1] of requests that must meet every limit on their own (goodput)

Cost
  --gpus N                  GPUs serving the endpoint (default: --sim-tp for the built-in simulator)
  --usd-per-gpu-hour X      price of one GPU-hour; without it no cost is shown

Every \`teapot bench\` flag but --concurrency/--rate applies to each point (target, workload, --requests
or --duration, --json, the built-in simulator's --sim-*). Without --requests or --duration a point sends
about ${AUTO_REQUESTS.pointSeconds} s of arrivals (rate) or ${AUTO_REQUESTS.roundsPerStream} requests per stream (concurrency), ${AUTO_REQUESTS.min} to ${AUTO_REQUESTS.max}.
With no --url the built-in simulator is swept: pass --sim-max-batch 16 --output-tokens 64 for a search that
saturates at a few tens of requests/s and finishes in about a minute.

Exit codes: 0 done, 1 error (bad flags, the endpoint failed), 2 the SLO failed at the lowest load.
`;
