import { useState } from 'react';
import { copyText } from '../lib/clipboard';
import { errorText } from '../lib/format';
import { useNotices } from '../stores/notices';
import { Icon } from './Icon';

/** Copies `text`; says "Copied" for a moment, or why it could not. */
export function CopyButton({ text, label, children }: { text: string | (() => string); label: string; children?: React.ReactNode }): React.JSX.Element {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="copy-button"
      aria-label={label}
      title={label}
      onClick={() => {
        copyText(typeof text === 'function' ? text() : text).then(
          () => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          },
          (err) => useNotices.getState().notify('error', `Could not copy: ${errorText(err)}`),
        );
      }}
    >
      <Icon name={copied ? 'check' : 'copy'} size={14} />
      {children && <span>{copied ? 'Copied' : children}</span>}
    </button>
  );
}
