/**
 * GitLab's error bodies, one helper each (lib/api/helpers.rb). Throw them from anywhere in a
 * request; the app's error handler turns them into the response.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown> | null,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body?.message === 'string' ? body.message : typeof body?.error === 'string' ? body.error : `HTTP ${status}`);
  }
}

/** `{"error": "..."}`: Grape parameter failures and plain-string `error!` calls. */
export const grapeError = (status: number, error: string): ApiError => new ApiError(status, { error });

export const badRequest = (reason?: string): ApiError =>
  new ApiError(400, { message: reason ? `400 Bad request - ${reason}` : '400 Bad request' });

export const missingAttribute = (attr: string): ApiError => badRequest(`"${attr}" not given`);

export const unauthorized = (): ApiError => new ApiError(401, { message: '401 Unauthorized' });

export const forbidden = (reason?: string): ApiError =>
  new ApiError(403, { message: reason ? `403 Forbidden - ${reason}` : '403 Forbidden' });

/** `notFound('Project')` -> 404 `{"message":"404 Project Not Found"}`; bare -> "404 Not Found". */
export const notFound = (resource?: string): ApiError =>
  new ApiError(404, { message: resource ? `404 ${resource} Not Found` : '404 Not Found' });

/** What GitLab answers when a record lookup raises ActiveRecord::RecordNotFound (lower-case "found"). */
export const recordNotFound = (): ApiError => new ApiError(404, { message: '404 Not found' });

export const conflict = (message = '409 Conflict'): ApiError => new ApiError(409, { message });

export const unprocessable = (message: unknown = '422 Unprocessable Entity'): ApiError =>
  new ApiError(422, { message });

/**
 * 503 with `Retry-After` (whole seconds, which python-gitlab's retry reads): Sandlab is busy — the
 * database stayed locked past its busy timeout, a queue is full — and the same request can be sent
 * again later.
 */
export const serviceUnavailable = (retryAfterSeconds: number): ApiError =>
  new ApiError(503, { message: '503 Service Unavailable' }, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

export const notModified = (): ApiError => new ApiError(304, null);

/** `render_api_error!(message, status)`: message may be a string, an array or a hash. */
export const apiError = (status: number, message: unknown): ApiError => new ApiError(status, { message });

/** `render_validation_error!`: `{"message": {"field": ["..."]}}`. */
export const validationError = (errors: Record<string, string[]>): ApiError => new ApiError(400, { message: errors });

export const insufficientScope = (scope: string): ApiError =>
  new ApiError(403, {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope,
  });

export const invalidToken = (description: string): ApiError =>
  new ApiError(
    401,
    { error: 'invalid_token', error_description: description },
    { 'www-authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"` },
  );
