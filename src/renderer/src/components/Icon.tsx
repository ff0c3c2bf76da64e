/** Bundled line icons (24x24 strokes): nothing is fetched, so the app stays offline. */
const PATHS = {
  snippets: 'M8 6l-6 6 6 6M16 6l6 6-6 6',
  uploads: 'M12 16V4M6 10l6-6 6 6M4 20h16',
  reviews: 'M4 5h16v11H9l-5 4z M8 9h8 M8 12h5',
  migrations: 'M4 7h12l-3-3M20 17H8l3 3',
  imports: 'M12 4v12M6 10l6 6 6-6M4 20h16',
  settings: 'M12 9a3 3 0 100 6 3 3 0 000-6z M4 12h2M18 12h2M12 4v2M12 18v2M6.3 6.3l1.4 1.4M16.3 16.3l1.4 1.4M6.3 17.7l1.4-1.4M16.3 7.7l1.4-1.4',
  project: 'M3 7l3-3h5l2 2h8v13H3z',
  copy: 'M9 9h11v11H9z M5 15H4V4h11v1',
  search: 'M11 4a7 7 0 110 14 7 7 0 010-14z M16 16l5 5',
  close: 'M6 6l12 12M18 6L6 18',
  file: 'M6 3h8l4 4v14H6z M14 3v4h4',
  plus: 'M12 5v14M5 12h14',
  check: 'M5 12l5 5 9-10',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16 }: { name: IconName; size?: number }): React.JSX.Element {
  return (
    <svg className="icon" width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} />
    </svg>
  );
}
