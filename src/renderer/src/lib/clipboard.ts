import { bridge } from '../bridge';

/** Copies text: through main in Electron (the window has no clipboard permission), else the browser's API. */
export async function copyText(text: string): Promise<void> {
  if (bridge.desktop) return bridge.desktop.copyText(text);
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text);
  throw new Error('this browser gives the page no clipboard');
}
