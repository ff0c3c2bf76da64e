import { ipcMain } from 'electron';
import ElectronStore from 'electron-store';
import { PreferencesService, preferencesStoreOptions } from './preferences';
import type { Preferences } from '../../shared/ipc';

/**
 * The app's preferences file (electron-store under the user-data folder). Kept apart from
 * preferences.ts because electron-store imports electron: tests use `conf`, its engine, instead.
 */
export function openPreferences(): PreferencesService {
  const store = new ElectronStore<Preferences>(preferencesStoreOptions() as ConstructorParameters<typeof ElectronStore<Preferences>>[0]);
  // electron-store answers 'electron-store-get-data' for any renderer (for its renderer mode, unused
  // here): every IPC listener must check its sender, so drop that unchecked one.
  ipcMain.removeAllListeners('electron-store-get-data');
  return new PreferencesService({ get: (k) => store.get(k as keyof Preferences), set: (k, v) => store.set(k, v) });
}
