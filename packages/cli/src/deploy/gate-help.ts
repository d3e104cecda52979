import { DEPLOYMENT_SETTINGS } from '@teapot/contracts';
import { DEFAULT_API_URL, GATE_DEFAULTS } from './gate-args';
import { GATE_EXIT } from './gate';

const S = DEPLOYMENT_SETTINGS;
const E = GATE_EXIT;

const API_FLAGS = `The teapot API
  --url URL                 where it listens (default $TEAPOT_URL, else ${DEFAULT_API_URL})
  --api-key KEY             a write key for deploy, any key for verdict (default $TEAPOT_API_KEY; never printed)
  --dashboard-url URL       the dashboard links' base (default: the API URL, which serves the dashboard at /)

Gate
  --timeout S               stop waiting after S seconds (default ${GATE_DEFAULTS.timeoutS}); the verification goes on
  --fail-on LIST            verdict classes that fail: regressed, inconclusive (covers no_baseline and the
                            timeout) or none (default ${GATE_DEFAULTS.failOn.join(',')})
  --markdown FILE           also write a PR-comment-ready summary (verdict badge, judged rows, links)`;

const EXIT_CODES = `Exit codes: ${E.passed} verified or improved (or a verdict --fail-on leaves out), ${E.regressed} regressed,
${E.inconclusive} inconclusive, no baseline or timed out, ${E.usage} bad flags or a request the API refused (400/409),
${E.unreachable} the API is unreachable, ${E.unauthorized} the key was refused (401/403/429), ${E.notFound} no such endpoint or deployment (404),
${E.apiError} the API failed (5xx), ${E.interrupted} Ctrl-C (the deployment keeps being verified).`;

export const DEPLOY_HELP = `Usage: teapot deploy --endpoint ID|NAME --label TEXT [flags]

Tells a running teapot that an endpoint changed (POST /deployments), waits while teapot runs the
endpoint's profiles and compares them with the runs before, prints the verdict table and exits by it:
a CI step after the deploy step.

Deployment
  --endpoint ID|NAME        the endpoint that changed: its id or exact name
  --label TEXT              what changed, e.g. "vLLM 0.10.1, FP16 weights"
  --version V               the version deployed, e.g. a git SHA or an image tag
  --config FIELD=VALUE      a field of the new serving configuration (repeatable; it becomes the endpoint's
                            next configuration version), e.g. --config weightQuant=fp16 --config tensorParallel=2;
                            a value that reads as JSON (2, true, null, "0.10") is sent as such, any other as text
  --profile ID              verify with this profile only (repeatable; default every enabled profile)
  --runs-per-profile N      post-deployment runs of each profile (${S.runsPerProfile.min}-${S.runsPerProfile.max}, default ${S.runsPerProfile.default})
  --baseline-runs K         compared with the last K runs before it (${S.baselineRuns.min}-${S.baselineRuns.max}, default ${S.baselineRuns.default})
  --threshold X             the relative change that matters (default ${S.threshold.default} = ${S.threshold.default * 100}%)
  --first-run-delay S       seconds before the first run, for caches to warm (default ${S.firstRunDelayS.default})
  --include-saturated       count client-saturated runs (a measuring machine known to be shared)

${API_FLAGS}

${EXIT_CODES}
`;

export const VERDICT_HELP = `Usage: teapot verdict <deployment-id> [flags]

Reads a deployment's verdict (GET /deployments/{id}), waiting while it is pending as teapot deploy does,
prints the verdict table and exits by it.

  --no-wait                 print the current state at once, even when it is still pending

${API_FLAGS}

${EXIT_CODES}
`;
