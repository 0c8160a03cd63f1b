import * as fs from 'node:fs';
import * as path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './api-exception.filter';
import { isApiPath } from './api-path';
import { NotFoundError } from '@monitor/domain';

/** Where `npm run build` puts the dashboard, from the built server or from a source checkout. */
export function dashboardDirectory(): string | null {
  const candidates = [
    path.resolve(__dirname, '../../frontend/browser'),
    path.resolve(process.cwd(), 'dist/frontend/browser'),
  ];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html'))) ?? null;
}

/** The public status pages and badges are the server's, never the dashboard's deep links. */
const isPublicStatusPath = (url: string): boolean => /^\/(status|badge)(\/|\?|$)/.test(url);

/**
 * Serves the built dashboard at `/`: hashed assets cached for a year, and index.html (no-cache)
 * for every other GET outside /api so deep links work. The Brotli or gzip copy written at build time
 * (scripts/finish-dashboard-build.mjs) is sent when the browser accepts it.
 */
export async function registerDashboard(app: NestFastifyApplication, dir: string | null): Promise<void> {
  if (dir) {
    await app.register(fastifyStatic, {
      root: dir,
      prefix: '/',
      wildcard: false,
      index: false,
      preCompressed: true,
      setHeaders: (reply: FastifyReply, filePath: string) => {
        const hashed = /-[A-Z0-9]{8,}\.(js|css)(\.br|\.gz)?$/.test(filePath);
        void reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  const fastify = app.getHttpAdapter().getInstance();
  fastify.get('/*', (request: FastifyRequest, reply: FastifyReply) => {
    if (isApiPath(request.url) || isPublicStatusPath(request.url)) {
      return sendError(
        request,
        reply,
        new NotFoundError(`no such endpoint: GET ${request.url.split('?')[0]}`),
      );
    }
    if (!dir) {
      return sendError(request, reply, new NotFoundError('the dashboard is not built: run npm run build'));
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}
