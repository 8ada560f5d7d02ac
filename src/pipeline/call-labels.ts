/**
 * A call's and an execution's names as stored (clipped, storable) and as their metric's labels (the
 * same names, capped): derived once per call, so the row and the metric never disagree, and the cap
 * never reaches the store (label-cap.ts).
 */
import { type LabelCap, OTHER } from '../metrics/label-cap.js';
import { countedTool, UNKNOWN_TOOL, UNNAMED_TOOL, type CheckedCall } from '../model.js';
import { storableText } from '../store/storable-text.js';
import type { ExecutionToRecord } from './merge.js';

const MAX_TEXT = 200;

/** Bounded and storable everywhere (storable-text.ts): NUL and lone surrogates become U+FFFD. */
export const clip = (s: string, n = MAX_TEXT): string => storableText(s.length > n ? s.slice(0, n) : s);

/** A trace, span or call id as failure records store it (and as rows keyed to them must). */
export const storedId = (id: string): string => clip(id);

/** A call's names as stored: clipped and storable, never capped. */
export interface CallNames {
  service: string;
  model: string;
  /** The tool as counted: its name, `_unknown` for an UnknownName call, `_unnamed` for a nameless one. */
  tool: string;
}

/** A call's names as stored, and its metric's labels (the same names, capped). */
export interface CallLabels extends CallNames {
  metric: CallNames;
}

/**
 * An execution's names as stored, fixed when its tool span arrives (its status is settled later:
 * executions.ts); its metric labels are read off the cap then (LabelCap.peek).
 */
export interface ExecutionLabels {
  service: string;
  tool: string;
}

/**
 * The names a call is counted under: in the store clipped and storable, `_unknown` for a name the
 * model invented, `_unnamed` for a call or execution no span named; in /metrics the same, capped per
 * label (overflow → `_other`, so no input can explode cardinality). Derived once per call, so the
 * metric and the stored row agree wherever the cap left the name alone. `budget`: the sender's share
 * of the cap (label-cap.ts).
 */
export function callLabels(c: CheckedCall, cap: LabelCap, budget?: string): CallLabels {
  const service = clip(c.service);
  const model = clip(c.model);
  const tool = countedName(countedTool(c.outcome.outcome, c.name));
  return {
    service,
    model,
    tool,
    metric: {
      service: cap.value('service', service, budget),
      model: cap.value('model', model, budget),
      tool: toolLabel(tool, cap, budget),
    },
  };
}

/**
 * callLabels of each of a batch's calls (all under one budget). A batch's calls share a few names: a
 * call under the names of an earlier one whose labels the cap admitted whole takes that call's labels
 * (the same object; labels are never changed once made) — asked again, the cap would answer the same
 * and charge nothing. Names the cap turned into `_other` are asked again per call, as before.
 */
export function batchCallLabels(calls: readonly CheckedCall[], cap: LabelCap, budget?: string): CallLabels[] {
  const out: CallLabels[] = new Array<CallLabels>(calls.length);
  const seen: { service: string; model: string; name: string; unknown: boolean; labels: CallLabels }[] = [];
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    const unknown = c.outcome.outcome === 'UnknownName';
    let labels: CallLabels | undefined;
    for (let j = 0; j < seen.length; j++) {
      const x = seen[j]!;
      if (x.name === c.name && x.service === c.service && x.model === c.model && x.unknown === unknown) {
        labels = x.labels;
        break;
      }
    }
    if (labels === undefined) {
      labels = callLabels(c, cap, budget);
      const m = labels.metric;
      // A name spelled `_other` cannot be told from the cap's overflow value: asked again.
      const admitted =
        m.service === labels.service &&
        m.model === labels.model &&
        m.tool === labels.tool &&
        m.service !== OTHER &&
        m.model !== OTHER &&
        m.tool !== OTHER;
      if (admitted && seen.length < REUSED_LABELS)
        seen.push({ service: c.service, model: c.model, name: c.name, unknown, labels });
    }
    out[i] = labels;
  }
  return out;
}

/** Label sets a batch remembers for reuse (batchCallLabels): compared one by one. */
const REUSED_LABELS = 16;

/** An execution's stored names; its labels are asked for under the sender's budget now, read when it is counted. */
export function executionLabels(e: ExecutionToRecord, cap: LabelCap, budget?: string): ExecutionLabels {
  const service = clip(e.service);
  const tool = countedName(e.execution.name === '' ? UNNAMED_TOOL : e.execution.name);
  cap.value('service', service, budget);
  toolLabel(tool, cap, budget);
  return { service, tool };
}

/** A model name as stored (a trajectory's model): clipped and storable. */
export function storedName(name: string): string {
  return clip(name);
}

/** The `scope` label of toolwatch_spans_unrecognized_total: the scope name, clipped and capped. */
export function scopeLabel(scope: string, cap: LabelCap, budget?: string): string {
  return cap.value('scope', clip(scope), budget);
}

/** `_unknown` and `_unnamed` are fixed values; any other name is clipped. */
function countedName(counted: string): string {
  return counted === UNKNOWN_TOOL || counted === UNNAMED_TOOL ? counted : clip(counted);
}

/** `_unknown` and `_unnamed` are fixed values, never capped; any other (clipped) name is capped. */
function toolLabel(tool: string, cap: LabelCap, budget?: string): string {
  return tool === UNKNOWN_TOOL || tool === UNNAMED_TOOL ? tool : cap.value('tool', tool, budget);
}

/** An execution's or trajectory's metric label for a stored name (`_unknown`, `_unnamed` as they are). */
export function peekLabel(cap: LabelCap, label: 'service' | 'tool', name: string): string {
  return label === 'tool' && (name === UNKNOWN_TOOL || name === UNNAMED_TOOL) ? name : cap.peek(label, name);
}
