/**
 * Routing in the browser below /console: the path names the screen, so every screen has an
 * address to bookmark, reload or open in a new tab (the server answers the page for any path
 * below /console).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';
const CHANGED = 'idp-console:navigate';

/** The path below /console, e.g. `/orgs/demo`. */
function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === '' ? '/' : path;
}

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', BASE + path);
  else history.pushState(null, '', BASE + path);
  dispatchEvent(new Event(CHANGED));
}

/** The current path, kept up to date on navigation and on the browser's back and forward. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    addEventListener('popstate', update);
    addEventListener(CHANGED, update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener(CHANGED, update);
    };
  }, []);
  return path;
}

/** `/orgs/demo/apps/x%20y` → `['orgs', 'demo', 'apps', 'x y']`. */
export function segmentsOf(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeURIComponent(segment));
}

/** `['orgs', 'a b']` → `/orgs/a%20b`. */
export function pathOf(...segments: string[]): string {
  return `/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`;
}

export function Link(props: { to: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' }) {
  const follow = (event: MouseEvent) => {
    // A click with a modifier opens a new tab or window, as on any link.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.to);
  };
  return (
    <a href={BASE + props.to} class={props.class} aria-current={props['aria-current']} onClick={follow}>
      {props.children}
    </a>
  );
}
