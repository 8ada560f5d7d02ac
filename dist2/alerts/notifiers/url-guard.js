/**
 * Where a webhook may point. Slack: only https://hooks.slack.com/… unless allowed otherwise.
 * Generic webhooks: no loopback, link-local (cloud metadata lives there), private, CGNAT,
 * multicast or unspecified addresses unless allowed — checked on the URL and again on every
 * address DNS returns at connect time (http-post.ts), so a public name resolving to 10.0.0.1 (or
 * re-resolving to it later) is refused too.
 */
import { BlockList, isIP } from 'node:net';
const blocked = new BlockList();
for (const [net, bits] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
])
    blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
])
    blocked.addSubnet(net, bits, 'ipv6');
/** True for an address no webhook may reach by default. IPv4-mapped IPv6 is judged as its IPv4. */
export function isPrivateAddress(address) {
    const addr = address.replace(/^\[|\]$/g, '');
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
    if (mapped)
        return blocked.check(mapped[1], 'ipv4');
    const family = isIP(addr);
    if (family === 4)
        return blocked.check(addr, 'ipv4');
    if (family === 6)
        return blocked.check(addr, 'ipv6');
    return false;
}
/** Problems with a notifier URL (empty = fine). Never echoes the URL: it is a secret. */
export function checkWebhookUrl(kind, raw, policy) {
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        return ['is not a valid URL'];
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
        return ['must be an http(s) URL'];
    if (url.username || url.password)
        return ['must not carry credentials in the URL'];
    if (kind === 'slack') {
        if (policy.allowAnyUrl)
            return [];
        if (url.protocol !== 'https:' || url.hostname !== 'hooks.slack.com' || url.port !== '') {
            return [
                'must be a Slack incoming webhook (https://hooks.slack.com/…); set allow_any_url: true to use another URL',
            ];
        }
        return [];
    }
    if (!policy.allowPrivateAddresses) {
        const host = url.hostname.replace(/^\[|\]$/g, '');
        if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) {
            return ['points at a loopback, link-local or private address; set allow_private_addresses: true to allow it'];
        }
    }
    return [];
}
/** What may be shown of a webhook URL: scheme and host. Path and query often are the secret. */
export function redactUrl(raw) {
    try {
        const u = new URL(raw);
        return `${u.protocol}//${u.host}/…`;
    }
    catch {
        return '(invalid URL)';
    }
}
//# sourceMappingURL=url-guard.js.map