import { useState } from 'react';

/** A destructive action asks once more in place: "Delete" -> "Delete <what>?" [Yes, delete] [Cancel]. */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, disabled }: { label: string; question: string; confirmLabel: string; onConfirm: () => void; disabled?: boolean }): React.JSX.Element {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        className="danger solid"
        autoFocus
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
