import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type Busboy from '@fastify/busboy';
import type { BusboyInstance } from '@fastify/busboy';
import { lazyRequire } from '../lazy-require';
import { ApiError, badRequest, grapeError } from './errors';
import type { FilePart } from './params';

const busboy = lazyRequire<typeof Busboy>('@fastify/busboy');

/** The body the HTTP layer hands over for `multipart/form-data`: the stream is read by `readMultipart`. */
export const MULTIPART_BODY = Symbol('multipart');

export interface MultipartLimits {
  /** Largest file part; larger answers 413. */
  maxFileBytes: number;
  /** Largest field value (longer values are cut, as busboy does). */
  maxFieldBytes: number;
  /** Where file parts stream to (the caller removes what it does not keep). */
  tmpDir: string;
}

const MAX_PARTS = 1000;

const tooLarge = (): ApiError => new ApiError(413, { message: '413 Request Entity Too Large' });

/**
 * Reads a `multipart/form-data` request with busboy: fields as strings, files streamed to disk
 * (never whole into memory), every part as a `[name, value]` pair in the order it came. Each file
 * is pushed on `files` as soon as it starts, so the caller can remove it whatever happens.
 */
export async function readMultipart(req: IncomingMessage, limits: MultipartLimits, files: FilePart[]): Promise<[string, unknown][]> {
  await mkdir(limits.tmpDir, { recursive: true });
  return new Promise((resolve, reject) => {
    let bb: BusboyInstance;
    try {
      const BusboyParser = busboy();
      bb = new BusboyParser({
        headers: req.headers as { 'content-type': string },
        limits: { parts: MAX_PARTS, fileSize: limits.maxFileBytes, fieldSize: limits.maxFieldBytes },
      });
    } catch (err) {
      reject(badRequest((err as Error).message));
      return;
    }
    const pairs: [string, unknown][] = [];
    const writes: Promise<void>[] = [];
    let sawData = false;
    let failed = false;
    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      req.resume(); // drain what is left so the connection can answer
      reject(err);
    };
    // Field names are assigned into plain objects: never a prototype's.
    const unsafeName = (name: string): boolean => name in Object.prototype;

    bb.on('field', (name, value) => {
      if (unsafeName(name)) return fail(grapeError(400, 'prototype property is not allowed as field name'));
      pairs.push([name, value]);
    });
    bb.on('file', (name, stream, filename, _encoding, mimetype) => {
      if (unsafeName(name)) {
        stream.resume();
        return fail(grapeError(400, 'prototype property is not allowed as field name'));
      }
      const file: FilePart = { kind: 'file', filename, mimetype, path: join(limits.tmpDir, randomBytes(16).toString('hex')), size: 0 };
      files.push(file);
      pairs.push([name, file]);
      stream.on('data', (chunk: Buffer) => (file.size += chunk.length));
      writes.push(
        pipeline(stream, createWriteStream(file.path)).then(() => {
          if (stream.truncated) throw tooLarge();
        }),
      );
    });
    const finish = (): void => {
      Promise.all(writes).then(
        // An empty file part with no name (python-gitlab's `avatar`) is not a file.
        () => {
          if (!failed) resolve(pairs.filter(([, v]) => !isEmptyUnnamedFile(v)));
        },
        fail,
      );
    };
    bb.on('partsLimit', () => fail(grapeError(413, 'reach parts limit')));
    bb.on('error', (err: Error) => {
      // An empty body is an empty form, not truncated multipart data.
      if (!sawData && err.message === 'Unexpected end of multipart data') finish();
      else fail(badRequest(err.message));
    });
    bb.on('finish', finish);
    req.once('data', () => (sawData = true));
    req.on('error', fail);
    req.pipe(bb);
  });
}

function isEmptyUnnamedFile(v: unknown): boolean {
  const f = v as FilePart;
  return !!f && typeof f === 'object' && f.kind === 'file' && !f.filename && f.size === 0;
}
