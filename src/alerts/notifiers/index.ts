/** The built-in notifier kinds, in a fresh registry (one per service instance). */
import { Registry } from '../../util/registry.js';
import { alertmanagerKind } from './alertmanager.js';
import { logKind } from './log.js';
import type { NotifierKind } from './registry.js';
import { slackKind } from './slack.js';
import { webhookKind } from './webhook.js';

export type { Notifier, NotifierKind, NotifierSettings, SendResult } from './registry.js';

export class NotifierKinds extends Registry<NotifierKind> {
  constructor() {
    super('notifier kind');
  }

  /** Kind names are lower_snake_case (config values); each kind is typed by its own keys. */
  override register<O>(name: string, kind: NotifierKind<O>, options: { before?: string } = {}): this {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`notifier kind ${JSON.stringify(name)}: use lower_snake_case`);
    return super.register(name, kind as unknown as NotifierKind, options);
  }
}

export function builtinNotifierKinds(): NotifierKinds {
  return new NotifierKinds()
    .register('log', logKind)
    .register('slack', slackKind)
    .register('webhook', webhookKind)
    .register('alertmanager', alertmanagerKind);
}
