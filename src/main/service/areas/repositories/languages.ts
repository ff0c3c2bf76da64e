import type { Repository } from '../../git/repository';

/**
 * GET /projects/:id/languages as Gitaly's linguist counts them (GitLab stores the top five): the
 * bytes of each language's files on the default branch, as a share of all the counted bytes,
 * largest first. Like linguist, vendored code, documentation, dotfiles and languages of the
 * `data` and `prose` kinds (JSON, YAML, Markdown, text) are not counted; a file's language comes
 * from its name or extension (linguist's first strategies; the content heuristics are not run).
 */
export async function repositoryLanguages(repo: Repository, commit: string): Promise<Record<string, number>> {
  const out = await repo.run(['ls-tree', '-r', '-l', '-z', '--full-tree', commit], { timeoutMs: 120_000 });
  const bytes = new Map<string, number>();
  let total = 0;
  for (const rec of out.stdout.toString('utf8').split('\0')) {
    const tab = rec.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, , size] = rec.slice(0, tab).split(/\s+/);
    const path = rec.slice(tab + 1);
    // Blobs only: not symbolic links (120000) or submodules.
    if (type !== 'blob' || mode === '120000' || !(Number(size) > 0)) continue;
    if (VENDOR.test(path) || DOCUMENTATION.test(path) || /(^|\/)\.[^/]*$/.test(path)) continue;
    const language = languageOf(path);
    if (!language) continue;
    bytes.set(language, (bytes.get(language) ?? 0) + Number(size));
    total += Number(size);
  }
  const shares = [...bytes].map(([name, n]) => [name, Math.round((n / total) * 100 * 100) / 100] as const);
  shares.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return Object.fromEntries(shares.slice(0, MAX_LANGUAGES));
}

/** Gitlab::LanguageDetection::MAX_LANGUAGES: a project keeps its five largest. */
const MAX_LANGUAGES = 5;

/** linguist's vendor.yml, its common entries. */
const VENDOR =
  /(^|\/)(node_modules|bower_components|vendor|vendors|third[-_]?party|dist|Godeps|Pods|Carthage)\/|(^|\/)cache\/|\.min\.(js|css)$|(^|\/)jquery[^/]*\.js$|(^|\/)gradlew(\.bat)?$|(^|\/)mvnw(\.cmd)?$/;
/** linguist's documentation.yml. */
const DOCUMENTATION =
  /^[Dd]ocs?\/|(^|\/)[Dd]ocumentation\/|(^|\/)[Gg]roovydoc\/|(^|\/)[Jj]avadoc\/|^[Mm]an\/|^[Ee]xamples?\/|(^|\/)(CHANGE(S|LOG)?|CONTRIBUTING|COPYING|INSTALL|LICEN[CS]E|[Ll]icen[cs]e|README|[Rr]eadme)(\.|$)|^[Ss]amples?\//;

/** Languages of linguist's `programming` and `markup` kinds by whole file name. */
const BY_NAME: Record<string, string> = {
  Makefile: 'Makefile',
  GNUmakefile: 'Makefile',
  makefile: 'Makefile',
  Dockerfile: 'Dockerfile',
  Containerfile: 'Dockerfile',
  Rakefile: 'Ruby',
  Gemfile: 'Ruby',
  Vagrantfile: 'Ruby',
  'CMakeLists.txt': 'CMake',
  Jenkinsfile: 'Groovy',
  'meson.build': 'Meson',
  BUILD: 'Starlark',
  'BUILD.bazel': 'Starlark',
};

/** ...and by extension (lower case). */
const BY_EXTENSION: Record<string, string> = {
  rb: 'Ruby', rake: 'Ruby', gemspec: 'Ruby', erb: 'HTML+ERB',
  py: 'Python', pyw: 'Python', pyi: 'Python',
  js: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript', jsx: 'JavaScript',
  ts: 'TypeScript', mts: 'TypeScript', cts: 'TypeScript', tsx: 'TSX',
  go: 'Go', rs: 'Rust', java: 'Java', kt: 'Kotlin', kts: 'Kotlin', scala: 'Scala', groovy: 'Groovy', gradle: 'Gradle',
  c: 'C', h: 'C', cc: 'C++', cpp: 'C++', cxx: 'C++', hpp: 'C++', hh: 'C++', hxx: 'C++', mm: 'Objective-C++',
  cs: 'C#', fs: 'F#', vb: 'Visual Basic .NET', swift: 'Swift', dart: 'Dart',
  php: 'PHP', pl: 'Perl', pm: 'Perl', lua: 'Lua', r: 'R', jl: 'Julia', ex: 'Elixir', exs: 'Elixir', erl: 'Erlang', hrl: 'Erlang',
  hs: 'Haskell', ml: 'OCaml', mli: 'OCaml', clj: 'Clojure', cljs: 'Clojure', elm: 'Elm', zig: 'Zig', nim: 'Nim',
  sh: 'Shell', bash: 'Shell', zsh: 'Shell', ksh: 'Shell', fish: 'fish', ps1: 'PowerShell', psm1: 'PowerShell', bat: 'Batchfile', cmd: 'Batchfile',
  html: 'HTML', htm: 'HTML', xhtml: 'HTML', css: 'CSS', scss: 'SCSS', sass: 'Sass', less: 'Less', styl: 'Stylus',
  vue: 'Vue', svelte: 'Svelte', haml: 'Haml', slim: 'Slim', pug: 'Pug', hbs: 'Handlebars', handlebars: 'Handlebars', mustache: 'Mustache', twig: 'Twig',
  tf: 'HCL', hcl: 'HCL', nix: 'Nix', cmake: 'CMake', mk: 'Makefile', mak: 'Makefile', dockerfile: 'Dockerfile',
  vim: 'Vim Script', el: 'Emacs Lisp', lisp: 'Common Lisp', scm: 'Scheme', rkt: 'Racket',
  asm: 'Assembly', f90: 'Fortran', pas: 'Pascal', cr: 'Crystal', coffee: 'CoffeeScript',
  tex: 'TeX', sol: 'Solidity', cu: 'Cuda', m4: 'M4', awk: 'Awk', tcl: 'Tcl',
};

function languageOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (BY_NAME[name]) return BY_NAME[name];
  const dot = name.lastIndexOf('.');
  return dot > 0 ? BY_EXTENSION[name.slice(dot + 1).toLowerCase()] : undefined;
}
