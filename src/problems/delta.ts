/**
 * What one batch adds to each problem it saw (record.ts picks the failures, write.ts writes this):
 * the failures grouped by (service, signature) with their counts per hour and per model, and which
 * failure fills each example slot. A delta lives until its batch committed, so it is kept small: a
 * few plain arrays (a batch's failures of one problem mostly share an hour and a model), no map per
 * problem and no key string per failure.
 */
import type { CommittedProblems } from './committed.js';
import type { Signature } from './signature.js';

const HOUR = 3_600_000;

export interface ProblemExample {
  slot: string;
  timeMs: number;
  model: string;
  traceId: string;
  spanId: string;
  name: string;
  arguments?: string;
  message: string;
}

/** A problem's failures of one model in the batch. */
export interface ModelCount {
  model: string;
  count: number;
  firstMs: number;
  lastMs: number;
}

/** What one batch adds to one problem. */
export interface ProblemDelta {
  signature: Signature;
  service: string;
  occurrences: number;
  firstMs: number;
  lastMs: number;
  /** Failures per hour: hour, count, hour, count … in the order the hours first came. */
  hours: number[];
  /** Per model, in the order the models first came. */
  models: ModelCount[];
  /** The slots to write: `first` (earliest in the batch), `latest`, and the first of each model. */
  examples: ProblemExample[];
}

/** Hours as a map's keys compare (a time that is not a number is one hour, as NaN is one key). */
const sameHour = (a: number, b: number) => a === b || (Number.isNaN(a) && Number.isNaN(b));

/** A delta in the making, and the failures that fill its slots. */
interface Group<T> {
  delta: ProblemDelta;
  first: T;
  firstT: number;
  latest: T;
  latestT: number;
  /** The first failure of each model, as delta.models lists them. */
  modelFirst: T[];
}

/** Groups a batch looks through one by one; past that, by a map from signature hash. */
const SCAN = 8;

/** Groups failures by (service, signature); each slot's example is built once, after grouping. */
export class Grouper<T> {
  private readonly groups: Group<T>[] = [];
  /** By signature hash (the signature covers the service: one hash, one group but for a collision). */
  private byHash: Map<string, Group<T>[]> | undefined;

  add(signature: Signature, service: string, model: string, timeMs: number, item: T): void {
    const t = Math.floor(timeMs);
    const g = this.group(signature, service, model, t, item);
    const d = g.delta;
    d.occurrences++;
    d.firstMs = Math.min(d.firstMs, t);
    d.lastMs = Math.max(d.lastMs, t);
    const hour = t - (t % HOUR);
    const hours = d.hours;
    let h = 0;
    while (h < hours.length && !sameHour(hours[h]!, hour)) h += 2;
    if (h < hours.length) hours[h + 1]!++;
    else hours.push(hour, 1);
    const models = d.models;
    let m = 0;
    while (m < models.length && models[m]!.model !== model) m++;
    if (m < models.length) {
      const c = models[m]!;
      c.count++;
      c.firstMs = Math.min(c.firstMs, t);
      c.lastMs = Math.max(c.lastMs, t);
    } else {
      models.push({ model, count: 1, firstMs: t, lastMs: t });
      g.modelFirst.push(item);
    }
    if (t < g.firstT) (g.first = item), (g.firstT = t);
    if (t >= g.latestT) (g.latest = item), (g.latestT = t);
  }

  /**
   * `kept`: what committed writes already hold. A slot filled for good is left out (its insert would do
   * nothing), and so is a `latest` less than `latestEveryMs` newer than the one written (older than
   * it, the upsert would keep the stored one; newer by less, it is not worth its redaction and write).
   */
  deltas(
    example: (item: T) => Omit<ProblemExample, 'slot'>,
    kept?: CommittedProblems,
    latestEveryMs = 0,
  ): ProblemDelta[] {
    const out: ProblemDelta[] = [];
    for (const g of this.groups) {
      const d = g.delta;
      const { service } = d;
      const id = d.signature.hash;
      let built: Map<T, Omit<ProblemExample, 'slot'>> | undefined;
      const fill = (slot: string, item: T) => {
        built ??= new Map();
        let ex = built.get(item);
        if (!ex) built.set(item, (ex = example(item)));
        d.examples.push({ ...ex, slot });
      };
      if (!kept?.hasFirst(service, id)) fill('first', g.first);
      if (!kept || g.latestT >= kept.latestMs(service, id) + latestEveryMs) fill('latest', g.latest);
      for (let i = 0; i < d.models.length; i++) {
        const model = d.models[i]!.model;
        if (!kept?.hasModel(service, id, model)) fill(`model:${model}`, g.modelFirst[i]!);
      }
      out.push(d);
    }
    return out;
  }

  /**
   * The failure's group; a new one starts with it as every slot's pick and with its hour and model
   * at a count of 0 (arrays made at their size: a push onto an empty array reserves 17 elements).
   */
  private group(signature: Signature, service: string, model: string, t: number, item: T): Group<T> {
    const hash = signature.hash;
    const candidates = this.byHash ? (this.byHash.get(hash) ?? []) : this.groups;
    for (const g of candidates) if (g.delta.signature.hash === hash && g.delta.service === service) return g;
    const made: Group<T> = {
      delta: {
        signature,
        service,
        occurrences: 0,
        firstMs: t,
        lastMs: t,
        hours: [t - (t % HOUR), 0],
        models: [{ model, count: 0, firstMs: t, lastMs: t }],
        examples: [],
      },
      first: item,
      firstT: t,
      latest: item,
      latestT: t,
      modelFirst: [item],
    };
    this.groups.push(made);
    if (this.byHash) this.index(made);
    else if (this.groups.length > SCAN) {
      this.byHash = new Map();
      for (const g of this.groups) this.index(g);
    }
    return made;
  }

  private index(g: Group<T>): void {
    const hash = g.delta.signature.hash;
    const list = this.byHash!.get(hash);
    if (list) list.push(g);
    else this.byHash!.set(hash, [g]);
  }
}
