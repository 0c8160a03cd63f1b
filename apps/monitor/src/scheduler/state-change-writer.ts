import { Injectable } from '@nestjs/common';
import type { Incident, ProbeResult } from '@monitor/contracts';
import type { Transition } from '@monitor/domain';
import { AlertOutboxRepository, type StoredAlert } from '../channels/alert-outbox.repository';
import { UnitOfWork, type SqlExecutor } from '../core/database/unit-of-work';
import type { AlertEvent } from '../core/events/event-bus';
import { ResultWriter } from '../history/result-writer.service';
import type { StoredResult } from '../history/stored-result';
import type { SensorRuntimeColumns } from '../sensors/sensor-runtime-columns';
import { toIncidentView } from '../incidents/incident.view';
import { IncidentsRepository } from '../incidents/incidents.repository';
import type { RuntimeEntry } from './runtime-entry';

/** What a state change wrote: the result's stored time, the incidents it changed, its alerts. */
export interface WrittenChange {
  ts: number | null;
  incidents: Incident[];
  alerts: AlertEvent[];
}

/**
 * Writes a state change (an incident opened or closed, an alert) in ONE `atomically` transaction:
 * the incident row, the result that caused it, the sensor's runtime columns and one alert outbox
 * row per channel. A kill -9 leaves either all of it or none of it, so a restart neither reopens a
 * resolved outage nor loses an announced one.
 */
@Injectable()
export class StateChangeWriter {
  constructor(
    private readonly unit: UnitOfWork,
    private readonly writer: ResultWriter,
    private readonly incidents: IncidentsRepository,
    private readonly outbox: AlertOutboxRepository,
  ) {}

  /** True when a step must be written by write() rather than left to the result batch. */
  static needed(step: Transition): boolean {
    return step.effects.some((e) => e.kind !== 'status-changed');
  }

  write(
    entry: RuntimeEntry,
    step: Transition,
    at: number,
    result: { stored: StoredResult; view: (ts: number) => ProbeResult } | null,
    columns: SensorRuntimeColumns,
  ): Promise<WrittenChange> {
    return this.unit.atomically(async (tx) => {
      const d = entry.definition;
      const changed: Incident[] = [];
      for (const effect of step.effects) {
        if (effect.kind === 'open-incident') {
          const opened = await this.incidents.open(d.id, effect.startedAt, effect.cause, false, tx);
          if (step.state.incident) step.state.incident.id = opened.id;
          changed.push(toIncidentView(opened, d.name));
        } else if (effect.kind === 'close-incident' && entry.state.incident?.id) {
          const closed = await this.incidents.close(
            entry.state.incident.id,
            effect.resolvedAt,
            effect.note,
            tx,
          );
          if (closed) changed.push(toIncidentView(closed, d.name));
        }
      }
      let ts: number | null = null;
      if (result) ts = await this.writer.writeIn(tx, result.stored, columns);
      else await this.writer.writeSensorIn(tx, d.id, columns);
      const lastResult = result && ts !== null ? result.view(ts) : entry.lastResult;
      const alerts: AlertEvent[] = [];
      for (const effect of step.effects) {
        if (effect.kind !== 'alert') continue;
        const alert: StoredAlert = {
          kind: effect.alert,
          at: effect.at,
          sensor: {
            id: d.id,
            name: d.name,
            type: d.type,
            target: d.target,
            group: d.group,
            tags: d.tags,
            status: step.state.status,
          },
          result: lastResult,
          incident: changed[0] ?? (await this.openIncident(tx, step, d.name)),
          downSince: effect.downSince,
          downForMs: effect.downForMs,
        };
        alerts.push({ ...alert, deliveries: await this.outbox.add(tx, alert, d.channelIds, at) });
      }
      return { ts, incidents: changed, alerts };
    });
  }

  /** A reminder is about the incident still open. */
  private async openIncident(
    tx: SqlExecutor,
    step: Transition,
    sensorName: string,
  ): Promise<Incident | null> {
    const id = step.state.incident?.id;
    const open = id ? await this.incidents.findById(id, tx) : null;
    return open ? toIncidentView(open, sensorName) : null;
  }
}
