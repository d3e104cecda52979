import { existsSync } from 'node:fs';
import path from 'node:path';
import { type DynamicModule, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { ServeStaticModule } from '@nestjs/serve-static';
import type { ApiEnv } from '@teapot/config';

/** apps/web/dist of this checkout: this file sits at apps/api/{src,dist}/dashboard/. */
export const DEFAULT_WEB_DIR = path.resolve(__dirname, '..', '..', '..', 'web', 'dist');

const BUILD_HINT = 'node scripts/pnpm.js exec turbo run build --filter=@teapot/web';

function createMissingDashboardNotice(rootPath: string) {
  @Injectable()
  class MissingDashboardNotice implements OnApplicationBootstrap {
    onApplicationBootstrap(): void {
      new Logger('Dashboard').warn(
        `no dashboard at ${rootPath}: the API runs without it (build it: ${BUILD_HINT})`,
      );
    }
  }
  return MissingDashboardNotice;
}

/**
 * The dashboard's files at `/` (only `/` renders index.html; the app routes after `#`, so every
 * API path and its 404 stay the API's). Without a built dashboard the API runs alone and says so.
 */
@Module({})
export class DashboardModule {
  static forRoot(env: Pick<ApiEnv, 'TEAPOT_WEB_DIR'>): DynamicModule {
    const rootPath = env.TEAPOT_WEB_DIR ?? DEFAULT_WEB_DIR;
    if (!existsSync(path.join(rootPath, 'index.html'))) {
      return { module: DashboardModule, providers: [createMissingDashboardNotice(rootPath)] };
    }
    return {
      module: DashboardModule,
      imports: [
        ServeStaticModule.forRoot({
          rootPath,
          renderPath: '/',
          serveStaticOptions: { index: false, fallthrough: true, maxAge: '1h' },
        }),
      ],
    };
  }
}
