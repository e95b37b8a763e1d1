/**
 * @module http/json-body
 * The one JSON body parser of `/v1` and the plugins' routes (the lean routes run it too): express's parser, then a
 * refusal of any `__proto__`, `constructor` or `prototype` key, anywhere in the body, as a 400 naming its path
 * (`tool_args.a.__proto__`). The check runs on what `JSON.parse` returned, the only value that still holds such a key:
 * every later copy (zod's records, spreads) would turn `__proto__` into a prototype and drop it silently.
 */
import express, { type RequestHandler } from 'express';
import { prototypeKeyPath } from '../utils/json-bounds.js';
import { formatPath, validationError } from '../api/validation.js';

/** express's JSON parser (`limit`, strict) followed by the prototype-key check. */
export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] });
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      const path = prototypeKeyPath(req.body);
      if (!path) return next();
      next(
        validationError([
          {
            path: formatPath('', path),
            message: 'key not accepted ("__proto__", "constructor" and "prototype" are refused anywhere in a body)',
          },
        ]),
      );
    });
}
