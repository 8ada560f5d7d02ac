/** The built-in notifier kinds, in a fresh registry (one per service instance). */
import { Registry } from '../../util/registry.js';
import { alertmanagerKind } from './alertmanager.js';
import { logKind } from './log.js';
import { slackKind } from './slack.js';
import { webhookKind } from './webhook.js';
export class NotifierKinds extends Registry {
    constructor() {
        super('notifier kind');
    }
    /** Kind names are lower_snake_case (config values); each kind is typed by its own keys. */
    register(name, kind, options = {}) {
        if (!/^[a-z][a-z0-9_]*$/.test(name))
            throw new Error(`notifier kind ${JSON.stringify(name)}: use lower_snake_case`);
        return super.register(name, kind, options);
    }
}
export function builtinNotifierKinds() {
    return new NotifierKinds()
        .register('log', logKind)
        .register('slack', slackKind)
        .register('webhook', webhookKind)
        .register('alertmanager', alertmanagerKind);
}
//# sourceMappingURL=index.js.map