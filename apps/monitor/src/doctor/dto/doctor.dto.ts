import type { DoctorCheck, DoctorReport } from '@monitor/contracts';

export class DoctorCheckDto implements DoctorCheck {
  /** data_directory, database, migrations, tables (PostgreSQL), disk, writes, scheduler, delivery or cluster. */
  name!: string;
  ok!: boolean;
  /** What was found, for a human. */
  detail!: string;
}

export class DoctorReportDto implements DoctorReport {
  /** True when every check passed. */
  ok!: boolean;
  checks!: DoctorCheckDto[];
}
