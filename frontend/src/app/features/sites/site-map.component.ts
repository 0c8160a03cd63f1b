import {
  ChangeDetectionStrategy,
  Component,
  DOCUMENT,
  DestroyRef,
  ElementRef,
  ViewEncapsulation,
  afterNextRender,
  computed,
  effect,
  inject,
  input,
  signal,
  untracked,
  viewChild,
} from '@angular/core';
import type { MapSettings } from '@monitor/contracts';
import { TranslocoPipe } from '@jsverse/transloco';
import * as L from 'leaflet';

import { ApiCallError } from '../../core/api/api-call-error';
import { activeLanguage, t } from '../../core/i18n/i18n';
import { SessionStore } from '../../core/session/session.store';
import { type CountryData, MapDataService } from './map-data';
import type { PlacedSite } from './sites.store';

/** Leaflet's stylesheet: a non-injected global style of the build (`angular.json`), loaded with the map. */
const LEAFLET_CSS = 'leaflet.css';
/** Country names are drawn from this zoom on; below it they would cover the map. */
const NAMES_FROM_ZOOM = 3;
const NATURAL_EARTH = '<a href="https://www.naturalearthdata.com/">Natural Earth</a>';

/** The attribution as Leaflet shows it (it takes HTML): the administrator's text, as text. */
function asText(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
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
 * and names only while the map settings say `borders: on` and the account's own `ui.borders` is
 * not `off` (their file is not even requested otherwise); tiles only when a tile URL is set, so an
 * installation without one fetches nothing
 * from elsewhere. Markers show each placed site's name and sensor count; they are not controls
 * (the list beside the map is where sites are read and changed).
 */
@Component({
  selector: 'app-site-map',
  changeDetection: ChangeDetectionStrategy.OnPush,
  encapsulation: ViewEncapsulation.None,
  imports: [TranslocoPipe],
  template: `
    <div
      #canvas
      class="site-map"
      role="region"
      [attr.aria-label]="'sites.map.label' | transloco"
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
  private readonly session = inject(SessionStore);
  private readonly document = inject(DOCUMENT);
  private readonly canvas = viewChild.required<ElementRef<HTMLElement>>('canvas');

  /** A load failure, worded where shown (the server's reason, if any, verbatim). */
  private readonly failure = signal<
    { what: 'stylesheet' | 'coastlines' | 'borders'; error: string } | undefined
  >(undefined);
  protected readonly problem = computed(() => {
    const failure = this.failure();
    return failure ? t(`sites.map.problem.${failure.what}`, { error: failure.error }) : undefined;
  });
  private readonly ready = signal(false);

  private map: L.Map | undefined;
  private readonly markers = L.layerGroup();
  private readonly countries = L.layerGroup();
  private tiles: { url: string; attribution: string; layer: L.TileLayer } | undefined;
  private zoom: L.Control.Zoom | undefined;
  private outlines: string | undefined;
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
      activeLanguage();
      if (this.ready()) untracked(() => this.drawSites(sites));
    });
    effect(() => {
      activeLanguage();
      if (this.ready()) untracked(() => this.labelControls());
    });
    effect(() => {
      const settings = this.settings();
      // Borders need the installation to offer them and the account not to have turned them off.
      const accountBorders = this.session.info()?.ui.borders ?? 'on';
      if (this.ready()) untracked(() => this.applySettings(settings, accountBorders === 'on'));
    });
  }

  private async start(): Promise<void> {
    try {
      await leafletStylesheet(this.document);
    } catch {
      this.failure.set({ what: 'stylesheet', error: '' });
      return;
    }
    if (this.destroyed) return;
    const map = L.map(this.canvas().nativeElement, {
      minZoom: 1,
      maxZoom: 18,
      worldCopyJump: false,
      zoomControl: false,
    });
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
        style: () => ({ className: 'map-land', weight: 1 }),
      })
        .addTo(map)
        .bringToBack();
    } catch (failure: unknown) {
      this.failure.set({ what: 'coastlines', error: ApiCallError.from(failure).message });
    }
  }

  private drawSites(sites: readonly PlacedSite[]): void {
    this.markers.clearLayers();
    for (const site of sites) {
      const body = this.document.createElement('span');
      body.className = 'site-marker-label';
      body.dataset['site'] = site.name;
      body.textContent = t('sites.map.marker', { name: site.name, count: site.sensor_count });
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

  /** Leaflet's zoom buttons and our outline credit, in the active language (redone on a change). */
  private labelControls(): void {
    const map = this.map;
    if (!map) return;
    this.zoom?.remove();
    this.zoom = L.control
      .zoom({ zoomInTitle: t('sites.map.zoomIn'), zoomOutTitle: t('sites.map.zoomOut') })
      .addTo(map);
    const outlines = t('sites.map.outlines', { source: NATURAL_EARTH });
    if (this.outlines !== undefined) map.attributionControl.removeAttribution(this.outlines);
    map.attributionControl.addAttribution(outlines);
    this.outlines = outlines;
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

  private applySettings(settings: MapSettings, accountBorders: boolean): void {
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

    this.bordersWanted = settings.borders === 'on' && accountBorders;
    if (this.bordersWanted) void this.drawCountries();
    else this.countries.clearLayers();
  }

  private async drawCountries(): Promise<void> {
    let data: CountryData;
    try {
      data = await this.data.loadCountries();
    } catch (failure: unknown) {
      this.failure.set({ what: 'borders', error: ApiCallError.from(failure).message });
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
