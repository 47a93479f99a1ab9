/**
 * A browser for page tests through app.inject(): it keeps cookies as a browser would (path '/' only,
 * which is all the server sets), reads the CSRF token out of the page it got, and posts forms
 * url-encoded. It follows no redirects: tests look at them.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

export class Browser {
  readonly app: FastifyInstance;
  readonly cookies = new Map<string, string>();

  constructor(app: FastifyInstance) {
    this.app = app;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const response = await this.app.inject({ method: 'GET', url, headers: this.#headers() });
    this.#keep(response);
    return response;
  }

  /** Posts `form` url-encoded; repeated fields as arrays. */
  async post(url: string, form: Record<string, string | string[]>): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
    }
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: { ...this.#headers(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: body.toString(),
    });
    this.#keep(response);
    return response;
  }

  /** Gets `url` and returns the CSRF token of its (first) form. */
  async csrfTokenOf(url: string): Promise<string> {
    return csrfTokenIn((await this.get(url)).body);
  }

  /** Signs in through the sign-in form; returns the sign-in answer (a 303 on success). */
  async signIn(email: string, password: string, returnTo = '/developer'): Promise<LightMyRequestResponse> {
    const token = await this.csrfTokenOf('/sign_in');
    return this.post('/sign_in', { _csrf: token, email, password, return_to: returnTo });
  }

  #headers(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  #keep(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies as Array<{
      name: string;
      value: string;
      maxAge?: number;
      expires?: Date;
    }>) {
      const expired =
        cookie.maxAge === 0 || (cookie.expires !== undefined && cookie.expires.getTime() <= Date.now());
      if (expired || cookie.value === '') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }
}

/** The value of the first `_csrf` hidden field of a page. */
export function csrfTokenIn(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (match === null) throw new Error(`no CSRF field in the page:\n${page.slice(0, 2000)}`);
  return match[1]!;
}

/** The value of the hidden field `name` in a page (entities for & decoded, as a browser would). */
export function hiddenFieldIn(page: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
  return match?.[1]
    ?.replaceAll('&amp;', '&')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>');
}
