/** Model validators GitLab shares between records, with its messages. */

/** AddressableUrlValidator (`addressable_url: true`): a parseable http(s) URL with a host. */
export function addressableUrlErrors(value: string): string[] {
  if (!value) return ['must be a valid URL'];
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return ['must be a valid URL'];
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return ['is blocked: Only allowed schemes are http, https'];
  if (!parsed.hostname) return ['must be a valid URL'];
  return [];
}
