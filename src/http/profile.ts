import type { FastifyRequest } from 'fastify';

/**
 * Response profiles: how the API answers a client. `spec` (the default) is this service's own
 * contract; `facturascripts` answers as the established system does where the two differ, so that
 * clients written for it work unchanged (docs/compatibility.md lists every difference). Chosen per
 * key (`apikey.profile`; the global key: setting `api_profile`) and applied only in the HTTP layer:
 * input reading, list parsing, the response serializer and the error mapping.
 */
export const PROFILES = ['spec', 'facturascripts'] as const;
export type Profile = (typeof PROFILES)[number];

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the pipeline once the key is known; `spec` before that. */
    profile?: Profile;
  }
}

export function profileOf(request: FastifyRequest): Profile {
  return request.profile ?? 'spec';
}

/** The established system's lenient reading applies: unknown fields ignored, no list maximum ... */
export function isLegacy(request: FastifyRequest): boolean {
  return request.profile === 'facturascripts';
}
