import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';

/**
 * The headers a request is answered by (credentials, Host), read straight from node's raw list
 * instead of its `headers` object: any spelling of a field name counts, a field sent twice keeps
 * node's own rule (private-token joined with ", ", authorization's first kept), and the Host of
 * each request, not of the one before it on the connection, makes web_url.
 */
let s: TestService;
let projectId: number;
beforeAll(async () => {
  s = await TestService.start();
  projectId = (await s.createProject({ name: 'heads' })).id;
});
afterAll(async () => s.stop());

interface Answer {
  status: number;
  body: string;
}

/** Writes `requests` (raw HTTP/1.1, the last with Connection: close) on one socket and splits the answers. */
function exchange(requests: string[]): Promise<Answer[]> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(requests.join('')));
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (out += d));
    socket.on('error', reject);
    socket.on('end', () => {
      const answers: Answer[] = [];
      let rest = out;
      while (rest.length) {
        const headEnd = rest.indexOf('\r\n\r\n');
        const head = rest.slice(0, headEnd);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        answers.push({ status: Number(head.slice(9, 12)), body: rest.slice(headEnd + 4, headEnd + 4 + length) });
        rest = rest.slice(headEnd + 4 + length);
      }
      resolve(answers);
    });
  });
}

const request = (path: string, fields: string[], last = true): string =>
  `GET /api/v4${path} HTTP/1.1\r\n${fields.map((f) => `${f}\r\n`).join('')}${last ? 'Connection: close\r\n' : ''}\r\n`;

const one = async (path: string, fields: string[]): Promise<Answer> => (await exchange([request(path, fields)]))[0];

const UNAUTHORIZED = JSON.stringify({ message: '401 Unauthorized' });

describe('credentials from the request head', () => {
  it('takes the token field in any spelling of its name', async () => {
    for (const name of ['PRIVATE-TOKEN', 'private-token', 'Private-Token', 'pRIVATE-tOKEN']) {
      const res = await one('/user', ['Host: 127.0.0.1', `${name}: ${ROOT_TOKEN}`]);
      expect([name, res.status, JSON.parse(res.body).username]).toEqual([name, 200, 'root']);
    }
    for (const name of ['Authorization', 'AUTHORIZATION', 'authorization']) {
      const res = await one('/user', ['Host: 127.0.0.1', `${name}: Bearer ${ROOT_TOKEN}`]);
      expect([name, res.status]).toEqual([name, 200]);
    }
    // Another field of the same length is not the token field, whatever its case.
    for (const name of ['PRIVATE_TOKEN', 'private-tokem', 'PRIVATE+TOKEN', 'Private-Tokens']) {
      const res = await one('/user', ['Host: 127.0.0.1', `${name}: ${ROOT_TOKEN}`]);
      expect([name, res.status]).toEqual([name, 401]);
    }
  });

  it('keeps node rule for a field sent twice: private-token values joined, the first authorization kept', async () => {
    // "token, token" is no token: 401, as before.
    const twice = await one('/user', ['Host: 127.0.0.1', `PRIVATE-TOKEN: ${ROOT_TOKEN}`, `private-token: ${ROOT_TOKEN}`]);
    expect(twice).toEqual({ status: 401, body: UNAUTHORIZED });
    const firstGood = await one('/user', ['Host: 127.0.0.1', `Authorization: Bearer ${ROOT_TOKEN}`, 'authorization: Bearer glpat-nobody']);
    expect(firstGood.status).toBe(200);
    const firstBad = await one('/user', ['Host: 127.0.0.1', 'Authorization: Bearer glpat-nobody', `AUTHORIZATION: Bearer ${ROOT_TOKEN}`]);
    expect(firstBad).toEqual({ status: 401, body: UNAUTHORIZED });
  });

  it('reads Sudo in any spelling, and a token field that is not the first field of the head', async () => {
    const { user } = await s.createUser({ username: 'head-sudo' });
    const res = await one('/user', ['Accept: */*', 'User-Agent: python-gitlab/4.4.0', 'SUDO: head-sudo', 'Host: 127.0.0.1', `Private-Token: ${ROOT_TOKEN}`]);
    expect([res.status, JSON.parse(res.body).id]).toEqual([200, user.id]);
  });

  it('answers without credentials as anonymous (a public read) and a required one with 401', async () => {
    expect((await one('/version', ['Host: 127.0.0.1'])).status).toBe(401);
    expect((await one(`/projects/${projectId}`, ['Host: 127.0.0.1', 'X-Private-Token: nothing'])).status).toBe(404);
  });
});

describe('credentials from the parameters', () => {
  /** What /user answers, by status and username. */
  const who = async (path: string, fields: string[]): Promise<[number, string | undefined]> => {
    const res = await one(path, ['Host: 127.0.0.1', ...fields]);
    return [res.status, res.status === 200 ? JSON.parse(res.body).username : res.body];
  };

  it('takes private_token, access_token, job_token and sudo from the query, each under its own name', async () => {
    const { user } = await s.createUser({ username: 'param-sudo' });
    const job = (await s.post('/sandlab/job_tokens', { project_id: projectId })).body.token as string;
    expect(await who(`/user?private_token=${ROOT_TOKEN}`, [])).toEqual([200, 'root']);
    expect(await who(`/user?access_token=${ROOT_TOKEN}`, [])).toEqual([200, 'root']);
    // A job token is read only where GitLab takes one (job_token_allowed); /user is not such a route.
    expect(await who(`/projects/${projectId}/merge_requests?job_token=${job}`, [])).toEqual([200, undefined]);
    expect(await who(`/user?job_token=${job}`, [])).toEqual([401, UNAUTHORIZED]);
    expect(await who(`/user?private_token=${ROOT_TOKEN}&sudo=param-sudo`, [])).toEqual([200, 'param-sudo']);
    expect(await who(`/user?sudo=${user.id}`, [`PRIVATE-TOKEN: ${ROOT_TOKEN}`])).toEqual([200, 'param-sudo']);
    // Another parameter's name is no credential.
    for (const name of ['private-token', 'token', 'accesstoken', 'job-token', 'PRIVATE_TOKEN']) {
      expect([name, ...(await who(`/user?${name}=${ROOT_TOKEN}`, []))]).toEqual([name, 401, UNAUTHORIZED]);
    }
    expect(await who(`/user?sudo=param-sudo`, [])).toEqual([401, UNAUTHORIZED]);
  });

  // GitLab's AuthFinders#find_personal_access_token: params[:private_token].presence || env['HTTP_PRIVATE_TOKEN'].presence
  // || parsed_oauth_token; find_user_from_job_token and sudo_identifier read the parameter before the header too.
  it('reads private_token, then the head, Bearer and access_token, and skips empty values', async () => {
    const { token } = await s.createUser({ username: 'param-order' });
    expect(await who(`/user?private_token=${token}`, [`PRIVATE-TOKEN: ${ROOT_TOKEN}`])).toEqual([200, 'param-order']);
    expect(await who(`/user?private_token=${token}`, ['PRIVATE-TOKEN: nope'])).toEqual([200, 'param-order']);
    expect(await who(`/user?private_token=nope`, [`PRIVATE-TOKEN: ${token}`])).toEqual([401, UNAUTHORIZED]);
    expect(await who(`/user?access_token=${token}`, [`PRIVATE-TOKEN: ${ROOT_TOKEN}`])).toEqual([200, 'root']);
    expect(await who(`/user?private_token=${token}&access_token=${ROOT_TOKEN}`, [`Authorization: Bearer ${ROOT_TOKEN}`])).toEqual([200, 'param-order']);
    // GitLab's access_token_methods: ?access_token=, then Authorization: Bearer, then ?bearer_token=.
    expect(await who(`/user?access_token=${token}`, [`Authorization: Bearer ${ROOT_TOKEN}`])).toEqual([200, 'param-order']);
    expect(await who(`/user?bearer_token=${token}`, [])).toEqual([200, 'param-order']);
    expect(await who(`/user?bearer_token=${token}`, ['Authorization: Bearer nope'])).toEqual([401, UNAUTHORIZED]);
    expect(await who(`/user?access_token=%20&bearer_token=${token}`, [])).toEqual([200, 'param-order']);
    expect(await who(`/user?private_token=&access_token=${token}`, [])).toEqual([200, 'param-order']);
    expect(await who(`/user?private_token=${token}`, ['PRIVATE-TOKEN: '])).toEqual([200, 'param-order']);
    // A blank parameter is no token (`.presence`).
    expect(await who(`/user?private_token=%20%20`, [`PRIVATE-TOKEN: ${token}`])).toEqual([200, 'param-order']);
    // A parameter that is not one text (private_token[]=...) is no token.
    expect(await who(`/user?private_token[]=${ROOT_TOKEN}`, [])).toEqual([401, UNAUTHORIZED]);
  });

  it('reads job_token and sudo from the parameters before their heads', async () => {
    await s.createUser({ username: 'sudo-by-param' });
    await s.createUser({ username: 'sudo-by-header' });
    const job = (await s.post('/sandlab/job_tokens', { project_id: projectId })).body.token as string;
    const mrs = `/projects/${projectId}/merge_requests`;
    expect(await who(`${mrs}?job_token=${job}`, ['JOB-TOKEN: nope'])).toEqual([200, undefined]);
    expect(await who(`${mrs}?job_token=nope`, [`JOB-TOKEN: ${job}`])).toEqual([401, UNAUTHORIZED]);
    expect(await who(`${mrs}?job_token=`, [`JOB-TOKEN: ${job}`])).toEqual([200, undefined]);
    expect(await who(`/user?sudo=sudo-by-param`, [`PRIVATE-TOKEN: ${ROOT_TOKEN}`, 'Sudo: sudo-by-header'])).toEqual([200, 'sudo-by-param']);
    expect(await who(`/user?private_token=${ROOT_TOKEN}`, ['Sudo: sudo-by-header'])).toEqual([200, 'sudo-by-header']);
  });

  // Doorkeeper's from_bearer_authorization cuts off exactly /^Bearer /i; what follows is the token as sent.
  it('takes the Bearer token as sent after one space', async () => {
    const { token } = await s.createUser({ username: 'bearer-spaces' });
    expect(await who('/user', [`Authorization: bearer ${token}`])).toEqual([200, 'bearer-spaces']);
    expect(await who('/user', [`Authorization: Bearer   ${token}`])).toEqual([401, UNAUTHORIZED]);
    expect(await who('/user', [`Authorization: Bearer\t${token}`])).toEqual([401, UNAUTHORIZED]);
    expect(await who('/user', [`Authorization: Bearer  ${ROOT_TOKEN}`, `PRIVATE-TOKEN: ${token}`])).toEqual([200, 'bearer-spaces']);
  });

  // sudo_identifier is `params[:sudo] || env['HTTP_SUDO']`, with no `.presence`; sudo! answers 401 without a user on any route.
  it('asks for sudo with an empty sudo parameter or head, and refuses it without an access token', async () => {
    const { token } = await s.createUser({ username: 'sudo-edges' });
    const noUser = (name: string): [number, string] => [404, JSON.stringify({ message: `404 User with ID or username '${name}' Not Found` })];
    expect(await who(`/user?sudo=&private_token=${ROOT_TOKEN}`, [])).toEqual(noUser(''));
    expect(await who('/user', [`PRIVATE-TOKEN: ${ROOT_TOKEN}`, 'Sudo:'])).toEqual(noUser(''));
    expect(await who(`/user?sudo=%20sudo-edges`, [`PRIVATE-TOKEN: ${ROOT_TOKEN}`])).toEqual(noUser(' sudo-edges'));
    expect(await who('/user?sudo=', [`PRIVATE-TOKEN: ${token}`])).toEqual([403, JSON.stringify({ message: '403 Forbidden - Must be admin to use sudo' })]);
    const job = (await s.post('/sandlab/job_tokens', { project_id: projectId })).body.token as string;
    expect(await who(`/projects/${projectId}/merge_requests?sudo=sudo-edges`, [`JOB-TOKEN: ${job}`])).toEqual([
      403,
      JSON.stringify({ message: '403 Forbidden - Must be authenticated using an OAuth or personal access token to use sudo' }),
    ]);
    // A public list read anonymously: Sudo alone is refused.
    expect((await one('/projects', ['Host: 127.0.0.1'])).status).toBe(200);
    expect(await who('/projects', ['Sudo: sudo-edges'])).toEqual([401, UNAUTHORIZED]);
    expect(await who('/projects?sudo=', [])).toEqual([401, UNAUTHORIZED]);
  });

  // sudo_identifier is `params[:sudo] || env['HTTP_SUDO']`: a structured parameter (`sudo[]=`) is
  // truthy, so it asks for sudo in place of the head, and the refusals before the user lookup stand.
  // GitLab's UserFinder then raises on it (Array has no =~ since Ruby 3.2: a 500); Sandlab finds no
  // user, with the identifier shown as Ruby's `#{}` shows it.
  it('asks for sudo with an array or hash parameter, before the head, and finds no user by it', async () => {
    const { token } = await s.createUser({ username: 'sudo-array' });
    const noUser = (name: string): [number, string] => [404, JSON.stringify({ message: `404 User with ID or username '${name}' Not Found` })];
    expect(await who('/user?sudo[]=sudo-array', [`PRIVATE-TOKEN: ${ROOT_TOKEN}`])).toEqual(noUser('["sudo-array"]'));
    expect(await who('/user?sudo[]=sudo-array', [`PRIVATE-TOKEN: ${ROOT_TOKEN}`, 'Sudo: sudo-array'])).toEqual(noUser('["sudo-array"]'));
    expect(await who('/user?sudo[]=a&sudo[]=', [`PRIVATE-TOKEN: ${ROOT_TOKEN}`])).toEqual(noUser('["a", ""]'));
    expect(await who('/user?sudo[id]=1', [`PRIVATE-TOKEN: ${ROOT_TOKEN}`])).toEqual(noUser('{"id"=>"1"}'));
    expect(await who('/user?sudo[]=sudo-array', [`PRIVATE-TOKEN: ${token}`])).toEqual([403, JSON.stringify({ message: '403 Forbidden - Must be admin to use sudo' })]);
    expect(await who('/projects?sudo[]=sudo-array', [])).toEqual([401, UNAUTHORIZED]);
    // The plain parameter still switches the user.
    expect(await who('/user?sudo=sudo-array', [`PRIVATE-TOKEN: ${ROOT_TOKEN}`])).toEqual([200, 'sudo-array']);
  });

  it('takes private_token and sudo from a JSON body too', async () => {
    await s.createUser({ username: 'body-sudo' });
    const body = JSON.stringify({ private_token: ROOT_TOKEN, sudo: 'body-sudo', name: 'by-body' });
    const res = await exchange([
      `POST /api/v4/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expect([res[0].status, JSON.parse(res[0].body).owner?.username]).toEqual([201, 'body-sudo']);
  });

  // Sudo is the API's (API::Helpers#sudo!); GitLab's web pages (Rails controllers: raw snippets,
  // uploads, avatars) read no sudo parameter or head, so neither refuses nor switches the user there.
  it('reads no sudo on the web routes outside /api/v4', async () => {
    const snippet = (await s.post('/snippets', { title: 'web', file_name: 'w.txt', content: 'web sudo', visibility: 'public' })).body as { id: number };
    const raw = async (query: string, fields: string[]): Promise<Answer> =>
      (await exchange([`GET /-/snippets/${snippet.id}/raw${query} HTTP/1.1\r\nHost: 127.0.0.1\r\n${fields.map((f) => `${f}\r\n`).join('')}Connection: close\r\n\r\n`]))[0];
    for (const [query, fields] of [
      ['', ['Sudo: root']],
      ['?sudo=', []],
      ['?sudo=root', []],
      ['', [`PRIVATE-TOKEN: ${ROOT_TOKEN}`, 'Sudo: no-such-user']],
      ['?sudo=', [`PRIVATE-TOKEN: ${ROOT_TOKEN}`]],
    ] as [string, string[]][]) {
      const res = await raw(query, fields);
      expect([query, ...fields, res.status, res.body]).toEqual([query, ...fields, 200, 'web sudo']);
    }
    // The API still asks for the user.
    expect(await who(`/user?sudo=no-such-user`, [`PRIVATE-TOKEN: ${ROOT_TOKEN}`])).toEqual([404, JSON.stringify({ message: "404 User with ID or username 'no-such-user' Not Found" })]);
  });

  // Grape's params[:sudo] keeps a JSON number, and UserFinder#find_by_id_or_username takes an Integer as an id.
  it('takes a JSON body sudo given as a number as a user id', async () => {
    const { user } = await s.createUser({ username: 'body-sudo-id' });
    const body = JSON.stringify({ private_token: ROOT_TOKEN, sudo: user.id, name: 'by-body-id' });
    const res = await exchange([
      `POST /api/v4/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expect([res[0].status, JSON.parse(res[0].body).owner?.username]).toEqual([201, 'body-sudo-id']);
    const none = JSON.stringify({ private_token: ROOT_TOKEN, sudo: 987654, name: 'by-body-none' });
    const refused = await exchange([
      `POST /api/v4/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${none.length}\r\nConnection: close\r\n\r\n${none}`,
    ]);
    expect([refused[0].status, refused[0].body]).toEqual([404, JSON.stringify({ message: "404 User with ID or username '987654' Not Found" })]);
    expect((await s.get('/projects?search=by-body-none')).body).toEqual([]);
  });
});

describe('Host', () => {
  it('makes web_url from each request own Host, on one connection and across connections', async () => {
    const token = `PRIVATE-TOKEN: ${ROOT_TOKEN}`;
    const hosts = ['a.example:8080', 'B.Example', 'a.example:8080', '127.0.0.1:1'];
    const answers = await exchange(hosts.map((h, i) => request(`/projects/${projectId}`, [`HOST: ${h}`, token], i === hosts.length - 1)));
    expect(answers.map((a) => JSON.parse(a.body).web_url)).toEqual(hosts.map((h) => `http://${h}/root/heads`));
    const again = await one(`/projects/${projectId}`, ['host: c.example', token]);
    expect(JSON.parse(again.body).web_url).toBe('http://c.example/root/heads');
  });

  it('a Host sent twice is node first one', async () => {
    const res = await one(`/projects/${projectId}`, ['Host: first.example', 'Host: second.example', `PRIVATE-TOKEN: ${ROOT_TOKEN}`]);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).web_url).toBe('http://first.example/root/heads');
  });
});
