import type { FastifyReply } from 'fastify';

export const SESSION_COOKIE = 'monitor_session';
export const SESSION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/** HttpOnly, SameSite=Strict and deliberately not Secure, so it works over plain HTTP. */
export function setSessionCookie(reply: FastifyReply, token: string): void {
  void reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: false,
    maxAge: SESSION_LIFETIME_MS / 1000,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: false });
}
