/**
 * The two functions of `topojson-client` (ISC, Mike Bostock) the map uses; the package ships no
 * types of its own.
 */
declare module 'topojson-client' {
  import type { Feature, FeatureCollection, MultiLineString } from 'geojson';

  /** A TopoJSON topology, as far as the map reads it. */
  export interface Topology {
    readonly type: 'Topology';
    readonly objects: Readonly<Record<string, TopologyObject>>;
    readonly arcs: readonly unknown[];
    readonly transform?: unknown;
  }

  export interface TopologyObject {
    readonly type: string;
    readonly geometries?: readonly TopologyObject[];
    readonly properties?: Readonly<Record<string, unknown>> | null;
  }

  /** The GeoJSON of one object of the topology (a collection gives a FeatureCollection). */
  export function feature(topology: Topology, object: TopologyObject): Feature | FeatureCollection;

  /** The arcs of `object` as lines; `filter(a, b)` keeps an arc shared by geometries a and b. */
  export function mesh(
    topology: Topology,
    object: TopologyObject,
    filter?: (a: TopologyObject, b: TopologyObject) => boolean,
  ): MultiLineString;
}
