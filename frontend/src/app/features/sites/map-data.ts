import { Injectable, inject } from '@angular/core';
import type { Feature, FeatureCollection, Geometry, MultiLineString, Position } from 'geojson';
import { feature, mesh } from 'topojson-client';

import { SitesApi } from './sites.api';

/** Country outlines: the borders between countries and one name per country. */
export interface CountryData {
  /** Borders shared by two countries (coastlines come from the land layer). */
  readonly borders: MultiLineString;
  readonly names: readonly CountryName[];
}

export interface CountryName {
  readonly name: string;
  /** [lat, lon] inside the country's largest part. */
  readonly at: readonly [number, number];
}

/**
 * Loads the bundled map data, each file at most once per visit. The countries file is read only
 * when asked for (map borders on): with borders off it is never requested.
 */
@Injectable({ providedIn: 'root' })
export class MapDataService {
  private readonly api = inject(SitesApi);
  private land: Promise<FeatureCollection> | undefined;
  private countries: Promise<CountryData> | undefined;

  loadLand(): Promise<FeatureCollection> {
    this.land ??= this.api.landOutlines().then((topology) => {
      const land = topology.objects['land'];
      if (!land) throw new Error('the land outlines file has no land object');
      return planarCollection(asCollection(feature(topology, land)));
    });
    void this.land.catch(() => (this.land = undefined));
    return this.land;
  }

  loadCountries(): Promise<CountryData> {
    this.countries ??= this.api.countryOutlines().then((topology) => {
      const countries = topology.objects['countries'];
      if (!countries) throw new Error('the country outlines file has no countries object');
      const borders = mesh(topology, countries, (a, b) => a !== b);
      return {
        borders: { ...borders, coordinates: borders.coordinates.map((line) => unwrap(line).points) },
        names: planarCollection(asCollection(feature(topology, countries))).features.flatMap(countryName),
      };
    });
    void this.countries.catch(() => (this.countries = undefined));
    return this.countries;
  }
}

function asCollection(geo: Feature | FeatureCollection): FeatureCollection {
  return geo.type === 'FeatureCollection' ? geo : { type: 'FeatureCollection', features: [geo] };
}

/**
 * The outlines on a flat map. The data is made for a globe: a shape that crosses the 180th
 * meridian jumps from +180 to -180 there, which a flat map would draw as a line across the world.
 * Longitudes are made continuous instead (Chukotka lies east of 180), and a ring around a pole
 * (Antarctica) is closed along the pole's edge of the map.
 */
function planarCollection(collection: FeatureCollection): FeatureCollection {
  return {
    ...collection,
    features: collection.features.map((item) =>
      item.geometry ? { ...item, geometry: planarGeometry(item.geometry) } : item,
    ),
  };
}

function planarGeometry(geometry: Geometry): Geometry {
  switch (geometry.type) {
    case 'Polygon':
      return { ...geometry, coordinates: geometry.coordinates.map(planarRing) };
    case 'MultiPolygon':
      return { ...geometry, coordinates: geometry.coordinates.map((polygon) => polygon.map(planarRing)) };
    default:
      return geometry;
  }
}

/**
 * Continuous longitudes along a line, placed so that the middle of its span lies between -180 and
 * 180, and how far its end was moved against its start (0, or ±360 per lap around a pole).
 */
function unwrap(line: readonly Position[]): { points: Position[]; shift: number } {
  let shift = 0;
  const points = line.map((point, index) => {
    if (index > 0) {
      const step = point[0] - line[index - 1][0];
      if (step > 180) shift -= 360;
      else if (step < -180) shift += 360;
    }
    return [point[0] + shift, point[1]];
  });
  if (points.length === 0) return { points, shift };
  const longitudes = points.map((point) => point[0]);
  const middle = (Math.min(...longitudes) + Math.max(...longitudes)) / 2;
  const offset = -360 * Math.round(middle / 360);
  return { points: offset === 0 ? points : points.map(([lon, lat]) => [lon + offset, lat]), shift };
}

function planarRing(ring: Position[]): Position[] {
  const { points, shift } = unwrap(ring);
  if (shift === 0 || points.length === 0) return points;
  // Around a pole: go along the map's edge at that pole back to the start.
  const first = points[0];
  const last = points[points.length - 1];
  const pole = points.reduce((sum, point) => sum + point[1], 0) < 0 ? -90 : 90;
  return [...points, [last[0], pole], [first[0], pole], first];
}

function countryName(country: Feature): CountryName[] {
  const name: unknown = country.properties?.['name'];
  const geometry = country.geometry;
  if (typeof name !== 'string' || !geometry) return [];
  const outlines =
    geometry.type === 'Polygon'
      ? [geometry.coordinates[0]]
      : geometry.type === 'MultiPolygon'
        ? geometry.coordinates.map((polygon) => polygon[0])
        : [];
  const largest = outlines
    .filter((ring): ring is Position[] => Array.isArray(ring) && ring.length > 2)
    .reduce<Position[] | undefined>(
      (best, ring) => (!best || Math.abs(ringArea(ring)) > Math.abs(ringArea(best)) ? ring : best),
      undefined,
    );
  if (!largest) return [];
  const [lon, lat] = centroid(largest);
  return [{ name, at: [lat, lon] }];
}

/** Twice the signed area of a ring in degrees (the shoelace formula). */
function ringArea(ring: readonly Position[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    sum += ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
  }
  return sum;
}

/** The centroid of a ring ([lon, lat]); the mean of its points when it has no area. */
function centroid(ring: readonly Position[]): [number, number] {
  const area = ringArea(ring);
  if (Math.abs(area) < 1e-9) {
    const lon = ring.reduce((sum, point) => sum + point[0], 0) / ring.length;
    const lat = ring.reduce((sum, point) => sum + point[1], 0) / ring.length;
    return [lon, lat];
  }
  let x = 0;
  let y = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const cross = ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
    x += (ring[j][0] + ring[i][0]) * cross;
    y += (ring[j][1] + ring[i][1]) * cross;
  }
  return [x / (3 * area), y / (3 * area)];
}
