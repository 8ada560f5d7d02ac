/** The built-in notifier kinds register themselves on import. */
import './log.js';
import './slack.js';
import './webhook.js';
export { notifierKind, notifierKinds, registerNotifierKind, type Notifier, type NotifierKind, type NotifierSettings, type SendResult } from './registry.js';
