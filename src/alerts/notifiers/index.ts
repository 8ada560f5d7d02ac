/** The built-in notifier kinds, in a fresh registry (one per service instance). */
import { Registry } from '../../util/registry.js';
import { alertmanagerKind } from './alertmanager.js';
import { logKind } from './log.js';
import type { NotifierKind } from './registry.js';
import { slackKind } from './slack.js';
import { webhookKind } from './webhook.js';

export type { Notifier, NotifierKind, NotifierSettings, SendResult } from './registry.js';
export type NotifierKinds = Registry<NotifierKind>;

export function builtinNotifierKinds(): NotifierKinds {
  return new Registry<NotifierKind>('notifier kind')
    .register('log', logKind)
    .register('slack', slackKind)
    .register('webhook', webhookKind)
    .register('alertmanager', alertmanagerKind);
}
