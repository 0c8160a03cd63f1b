import {
  ChangeDetectionStrategy,
  Component,
  DOCUMENT,
  DestroyRef,
  ElementRef,
  ViewEncapsulation,
  afterNextRender,
  effect,
  inject,
  input,
  signal,
  untracked,
  viewChild,
} from '@angular/core';
import type { MapSettings } from '@monitor/contracts';
import * as L from 'leaflet';

import { ApiCallError } from '../../core/api/api-call-error';
import { type CountryData, MapDataService } from './map-data';
import type { PlacedSite } from './sites.store';

/** Leaflet's stylesheet: a non-injected global style of the build (`angular.json`), loaded with the map. */
const LEAFLET_CSS = 'leaflet.css';
/** Country names are drawn from this zoom on; below it they would cover the map. */
const NAMES_FROM_ZOOM = 3;
const NATURAL_EARTH = 'Outlines: <a href="https://www.naturalearthdata.com/">Natural Earth</a>';

/** The attribution as Leaflet shows it (it takes HTML): the administrator's text, as text. */
function asText(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function sensorCount(count: number): string {
  return count === 1 ? '1 sensor' : `${count} sensors`;
}

/** Resolves once Leaflet's stylesheet is in the page (added on first use). */
function leafletStylesheet(document: Document): Promise<void> {
  const existing = document.querySelector<HTMLLinkElement>('link[data-leaflet]');
  if (existing?.dataset['loaded'] === 'true') return Promise.resolve();
  const link = existing ?? document.createElement('link');
  const loaded = new Promise<void>((resolve, reject) => {
    link.addEventListener('load', () => {
      link.dataset['loaded'] = 'true';
      resolve();
    });
    link.addEventListener('error', () => reject(new Error('the map stylesheet could not be loaded')));
  });
  if (!existing) {
    link.rel = 'stylesheet';
    link.href = LEAFLET_CSS;
    link.dataset['leaflet'] = '';
    document.head.appendChild(link);
  }
  return loaded;
}

/**
 * The sites on a Leaflet map. Always drawn: the bundled Natural Earth coastlines. Country borders
 * and names only while the map settings say `borders: on` (their file is not even requested
 * otherwise); tiles only when a tile URL is set, so an installation without one fetches nothing
 * from elsewhere. Markers show each placed site's name and sensor count; they are not controls
 * (the list beside the map is where sites are read and changed).
 */
@Component({
  selector: 'app-site-map',
  changeDetection: ChangeDetectionStrategy.OnPush,
  encapsulation: ViewEncapsulation.None,
  template: `
    <div
      #canvas
      class="site-map"
      role="region"
      aria-label="Map of the sites"
      data-testid="site-map"
      [attr.aria-describedby]="describedBy() ?? null"
    ></div>
    @if (problem(); as message) {
      <p class="site-map-problem" role="status">{{ message }}</p>
    }
  `,
  styleUrl: './site-map.component.css',
})
export class SiteMapComponent {
  readonly sites = input.required<readonly PlacedSite[]>();
  readonly settings = input.required<MapSettings>();
  /** The id of a text that says what the map shows. */
  readonly describedBy = input<string>();

  private readonly data = inject(MapDataService);
  private readonly document = inject(DOCUMENT);
  private readonly canvas = viewChild.required<ElementRef<HTMLElement>>('canvas');

  protected readonly problem = signal<string | undefined>(undefined);
  private readonly ready = signal(false);

  private map: L.Map | undefined;
  private readonly markers = L.layerGroup();
  private readonly countries = L.layerGroup();
  private tiles: { url: string; attribution: string; layer: L.TileLayer } | undefined;
  private bordersWanted = false;
  private fittedTo: string | undefined;
  private destroyed = false;

  constructor() {
    afterNextRender(() => void this.start());
    inject(DestroyRef).onDestroy(() => {
      this.destroyed = true;
      this.map?.remove();
    });
    effect(() => {
      const sites = this.sites();
      if (this.ready()) untracked(() => this.drawSites(sites));
    });
    effect(() => {
      const settings = this.settings();
      if (this.ready()) untracked(() => this.applySettings(settings));
    });
  }

  private async start(): Promise<void> {
    try {
      await leafletStylesheet(this.document);
    } catch (failure: unknown) {
      this.problem.set(failure instanceof Error ? failure.message : String(failure));
      return;
    }
    if (this.destroyed) return;
    const map = L.map(this.canvas().nativeElement, { minZoom: 1, maxZoom: 18, worldCopyJump: false });
    this.map = map;
    map.setView([25, 10], 1);
    const names = map.createPane('country-names');
    names.setAttribute('aria-hidden', 'true');
    const showNames = () =>
      map.getContainer().classList.toggle('names-hidden', map.getZoom() < NAMES_FROM_ZOOM);
    map.on('zoomend', showNames);
    showNames();
    this.markers.addTo(map);
    this.countries.addTo(map);
    this.ready.set(true);
    await this.drawLand(map);
  }

  private async drawLand(map: L.Map): Promise<void> {
    try {
      const land = await this.data.loadLand();
      if (this.destroyed) return;
      L.geoJSON(land, {
        interactive: false,
        attribution: NATURAL_EARTH,
        style: () => ({ className: 'map-land', weight: 1 }),
      })
        .addTo(map)
        .bringToBack();
    } catch (failure: unknown) {
      this.problem.set(`The coastlines could not be loaded: ${ApiCallError.from(failure).message}`);
    }
  }

  private drawSites(sites: readonly PlacedSite[]): void {
    this.markers.clearLayers();
    for (const site of sites) {
      const body = this.document.createElement('span');
      body.className = 'site-marker-label';
      body.dataset['site'] = site.name;
      body.textContent = `${site.name} · ${sensorCount(site.sensor_count)}`;
      const icon = L.divIcon({
        className: 'site-marker',
        html: body,
        iconSize: [14, 14],
        iconAnchor: [7, 7],
      });
      L.marker([site.lat, site.lon], { icon, interactive: false, keyboard: false }).addTo(this.markers);
    }
    this.fit(sites);
  }

  /** Shows every marker when the set of places changed (not on a rename or a new sensor count). */
  private fit(sites: readonly PlacedSite[]): void {
    const map = this.map;
    const key = sites
      .map((site) => `${site.lat},${site.lon}`)
      .sort()
      .join(';');
    if (!map || key === this.fittedTo) return;
    this.fittedTo = key;
    if (sites.length === 0) return;
    const bounds = L.latLngBounds(sites.map((site) => L.latLng(site.lat, site.lon)));
    map.fitBounds(bounds, { padding: [40, 40], maxZoom: 5 });
  }

  private applySettings(settings: MapSettings): void {
    const map = this.map;
    if (!map) return;
    const { tile_url: url, attribution } = settings;
    if (this.tiles && (this.tiles.url !== url || this.tiles.attribution !== attribution)) {
      this.tiles.layer.remove();
      this.tiles = undefined;
    }
    if (url !== '' && !this.tiles) {
      const layer = L.tileLayer(url, { attribution: asText(attribution), subdomains: 'abc', maxZoom: 19 });
      layer.addTo(map);
      this.tiles = { url, attribution, layer };
    }
    map.getContainer().classList.toggle('has-tiles', url !== '');

    this.bordersWanted = settings.borders === 'on';
    if (this.bordersWanted) void this.drawCountries();
    else this.countries.clearLayers();
  }

  private async drawCountries(): Promise<void> {
    let data: CountryData;
    try {
      data = await this.data.loadCountries();
    } catch (failure: unknown) {
      this.problem.set(`The country borders could not be loaded: ${ApiCallError.from(failure).message}`);
      return;
    }
    if (this.destroyed || !this.bordersWanted || this.countries.getLayers().length > 0) return;
    L.geoJSON(data.borders, {
      interactive: false,
      style: () => ({ className: 'map-border', weight: 1 }),
    }).addTo(this.countries);
    for (const country of data.names) {
      const label = this.document.createElement('span');
      label.textContent = country.name;
      const icon = L.divIcon({ className: 'map-country-name', html: label, iconSize: [0, 0] });
      L.marker([...country.at], { icon, interactive: false, keyboard: false, pane: 'country-names' }).addTo(
        this.countries,
      );
    }
  }
}
