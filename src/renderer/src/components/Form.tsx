import { isModKey } from '../lib/keys';

type FormProps = Omit<React.FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> & { onSubmit: () => void };

/**
 * A form that submits with Enter as usual and with Ctrl/Cmd+Enter from anywhere inside it, code
 * editors and text areas included (caught before they see the key).
 */
export function Form({ onSubmit, children, ...rest }: FormProps): React.JSX.Element {
  return (
    <form
      {...rest}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
      onKeyDownCapture={(e) => {
        if (!isModKey(e, 'Enter')) return;
        e.preventDefault();
        e.stopPropagation();
        e.currentTarget.requestSubmit();
      }}
    >
      {children}
    </form>
  );
}
