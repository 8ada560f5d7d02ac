/**
 * Ordered schema migrations for both stores. A migration is applied once, in a transaction,
 * and recorded in schema_migrations; never edit one that has shipped — add the next.
 */
import { core } from './001-core.js';
import { alerts } from './002-alerts.js';
import { judge } from './003-judge.js';
import { langfuse } from './004-langfuse.js';
import { outbox } from './005-outbox.js';
import { redaction } from './006-redaction.js';
import { feedbackReplay } from './007-feedback-replay.js';
import { exactlyOnce } from './008-exactly-once.js';
import { executionsEfficiency } from './009-executions-efficiency.js';
import { invalidJsonReason } from './010-invalid-json-reason.js';
import { problems } from './011-problems.js';
import { changes } from './012-changes.js';
import { changeCounts } from './013-change-counts.js';
import { problemCosts } from './014-problem-costs.js';
import { problemRecorded } from './015-problem-recorded.js';
import { commitMarks } from './016-commit-marks.js';
import { judgeOffered } from './017-judge-offered.js';
import { toolDefinitions } from './018-tool-definitions.js';
import { judgeStepKeys } from './019-judge-step-keys.js';

export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

export const migrations: readonly Migration[] = [
  core,
  alerts,
  judge,
  langfuse,
  outbox,
  redaction,
  feedbackReplay,
  exactlyOnce,
  executionsEfficiency,
  invalidJsonReason,
  problems,
  changes,
  changeCounts,
  problemCosts,
  problemRecorded,
  commitMarks,
  judgeOffered,
  toolDefinitions,
  judgeStepKeys,
];
