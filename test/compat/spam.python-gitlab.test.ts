import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab 3.12 against the local spam check', () => {
  it('raises GitlabCreateError with 400 for spam, 409 with the CAPTCHA fields, and creates once solved', () => {
    const out = runPython(
      served,
      `
import hashlib, hmac
s = gl.settings.get()
s.sandlab_spam_check_enabled = True
s.sandlab_spam_patterns = "cheap pills"
s.save()
p = gl.projects.create({"name": "spam-compat", "visibility": "public"})
body = {"title": "Offer", "visibility": "public", "file_name": "a.txt", "content": "Cheap pills here"}

def refused(create):
    try:
        create()
        return None
    except gitlab.exceptions.GitlabCreateError as e:
        return {"code": e.response_code, "message": e.error_message, "body": json.loads(e.response_body)}

plain_snippet = refused(lambda: gl.snippets.create(body))
plain_issue = refused(lambda: p.issues.create({"title": "cheap pills"}))

s = gl.settings.get()
s.recaptcha_enabled = True
s.recaptcha_site_key = "site-key"
s.recaptcha_private_key = "private-key"
s.save()
captcha = refused(lambda: p.snippets.create(body))
log_id = captcha["body"]["spam_log_id"]
gl.headers["X-GitLab-Captcha-Response"] = hmac.new(b"private-key", str(log_id).encode(), hashlib.sha256).hexdigest()
gl.headers["X-GitLab-Spam-Log-Id"] = str(log_id)
solved = p.snippets.create(body)
reused = refused(lambda: p.snippets.create(body))
print(json.dumps({"plain_snippet": plain_snippet, "plain_issue": plain_issue, "captcha": captcha,
                  "solved": solved.title, "reused": reused["code"]}))
`,
    );
    expect(out.plain_snippet).toEqual({
      code: 400,
      message: { error: 'Your snippet has been recognized as spam and has been discarded.' },
      body: { message: { error: 'Your snippet has been recognized as spam and has been discarded.' } },
    });
    expect(out.plain_issue.code).toBe(400);
    expect(out.plain_issue.message).toEqual({ base: ['Your issue has been recognized as spam and has been discarded.'] });
    expect(out.captcha.code).toBe(409);
    expect(out.captcha.body).toEqual({
      needs_captcha_response: true,
      spam_log_id: expect.any(Number),
      captcha_site_key: 'site-key',
      message: { error: 'Your snippet has been recognized as spam. Please, change the content or solve the reCAPTCHA to proceed.' },
    });
    expect(out.solved).toBe('Offer');
    expect(out.reused).toBe(409);
  });
});
