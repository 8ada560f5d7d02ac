/**
 * Judge storage, written once over the store's SQL port and so the same on SQLite and PostgreSQL, in
 * three parts: trajectories (trajectory-store.ts), verdicts and runs (verdict-store.ts), labels
 * (label-store.ts).
 */
import type { Sql } from '../store/sql.js';
import { LabelStore } from './label-store.js';
import { TrajectoryStore } from './trajectory-store.js';
import { VerdictStore } from './verdict-store.js';

export type { LabelPair } from './label-store.js';
export type { TrajectoryWrite } from './trajectory-store.js';
export type { LatestVerdict, VerdictPoint } from './verdict-store.js';

export class JudgeStore {
  readonly trajectories: TrajectoryStore;
  readonly verdicts: VerdictStore;
  readonly labels: LabelStore;

  constructor(readonly sql: Sql) {
    this.trajectories = new TrajectoryStore(sql);
    this.verdicts = new VerdictStore(sql);
    this.labels = new LabelStore(sql);
  }
}
