/** Bad analysis input, naming the parameter at fault: the API maps it to a 400 with that field. */
export class AnalysisInputError extends Error {
  override readonly name = 'AnalysisInputError';

  constructor(
    readonly parameter: string,
    readonly problem: string,
  ) {
    super(`${parameter} ${problem}`);
  }
}
