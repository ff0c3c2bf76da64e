import { useNotices } from '../stores/notices';
import { Icon } from './Icon';

/** The results of actions, bottom right: successes fade, errors (the API's own words) stay until closed. */
export function Notices(): React.JSX.Element {
  const { notices, dismiss } = useNotices();
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice ${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'} data-testid="notice">
          <span>{n.text}</span>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => dismiss(n.id)}>
            <Icon name="close" size={14} />
          </button>
        </div>
      ))}
    </div>
  );
}
