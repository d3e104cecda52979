import { Inject, Injectable } from '@nestjs/common';
import { type ApiEnv, encryptHeaders } from '@teapot/config';
import { API_ENV } from '../env/env.module';

export const MASK = '****';

/** Auth headers go in encrypted and come out as names with masked values. */
@Injectable()
export class EndpointSecrets {
  constructor(@Inject(API_ENV) private readonly env: ApiEnv) {}

  /** Header names are case-insensitive in HTTP; they are stored lower-case so one name is one header. */
  seal(headers: Record<string, string>): {
    authHeadersEnc: Uint8Array<ArrayBuffer> | null;
    authHeaderNames: string[];
  } {
    const { enc, names } = this.sealed(headers);
    return { authHeadersEnc: enc, authHeaderNames: names };
  }

  /** The metrics URL's headers, sealed as the auth headers are. */
  sealMetrics(headers: Record<string, string>): {
    metricsHeadersEnc: Uint8Array<ArrayBuffer> | null;
    metricsHeaderNames: string[];
  } {
    const { enc, names } = this.sealed(headers);
    return { metricsHeadersEnc: enc, metricsHeaderNames: names };
  }

  private sealed(headers: Record<string, string>): { enc: Uint8Array<ArrayBuffer> | null; names: string[] } {
    const normalized = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    const names = Object.keys(normalized).sort();
    if (names.length === 0) return { enc: null, names: [] };
    return { enc: new Uint8Array(encryptHeaders(normalized, this.env.TEAPOT_SECRET_KEY)), names };
  }

  masked(names: string[]): Record<string, string> {
    return Object.fromEntries(names.map((name) => [name, MASK]));
  }
}
