/** One way to show a failure: a role=alert line. */
export function ErrorNote({ message }: { message: string | null }): React.JSX.Element | null {
  if (!message) return null;
  return (
    <p className="error-note" role="alert">
      {message}
    </p>
  );
}
