import { Module } from '@nestjs/common';
import { scheduledChore } from '../chores/scheduled-chore';
import { DeploymentVerifier } from './deployment-verifier';
import { VerificationSweep } from './verification-sweep';

/**
 * The `analysis` queue: statistics over stored runs, never in a process that measures. Its job
 * `verify-deployment` compares a deployment's runs with the baseline (DeploymentVerifier); every
 * minute the sweep queues the verification of a pending deployment whose job is gone.
 */
@Module({
  providers: [
    DeploymentVerifier,
    VerificationSweep,
    scheduledChore({
      name: 'verification sweep',
      service: VerificationSweep,
      timing: () => ({ everyMs: 60_000 }),
      run: (sweep) => sweep.sweep(),
    }),
  ],
  exports: [DeploymentVerifier, VerificationSweep],
})
export class AnalysisModule {}
