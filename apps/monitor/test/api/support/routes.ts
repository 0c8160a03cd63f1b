import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { Access, ACCESS_METADATA } from '../../../src/core/http/access.decorator';
import type { TestApp } from './test-app';

export interface DiscoveredRoute {
  /** `METHOD /path/:param` */
  route: string;
  access: Access | undefined;
}

/** Every route of the app's controllers with its declared access (the app imports DiscoveryModule). */
export function discoverRoutes(t: TestApp): DiscoveredRoute[] {
  const discovery = t.app.get(DiscoveryService);
  const reflector = t.app.get(Reflector);
  const scanner = new MetadataScanner();
  const routes: DiscoveredRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as new (...args: unknown[]) => unknown;
    const prototype = controller.prototype as Record<string, unknown>;
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '').replace(/^\/|\/$/g, '');
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name] as object;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const sub = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '').replace(/^\/|\/$/g, '');
      const path = `/${[base, sub].filter(Boolean).join('/')}`;
      routes.push({
        route: `${RequestMethod[method]} ${path}`,
        access: reflector.getAllAndOverride<Access | undefined>(ACCESS_METADATA, [
          handler as () => void,
          controller,
        ]),
      });
    }
  }
  return routes;
}
