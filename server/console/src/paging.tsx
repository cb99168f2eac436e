/** A list read a page at a time by cursor (docs/api.md#queries-and-paging), with previous and next. */
import { t } from './i18n';
import { useState } from 'preact/hooks';
import type { Envelope } from './api';
import { useLoad, type Loaded } from './load';

export interface Pages extends Loaded<Envelope> {
  /** Back to the first page, loaded again (after a new query or a change). */
  first: () => void;
  hasPrevious: boolean;
  previous: () => void;
  next: () => void;
}

/** `load` reads the page after `cursor` (the first page when undefined); `keys` say when to start over. */
export function usePages(load: (cursor: string | undefined) => Promise<Envelope>, keys: readonly unknown[]): Pages {
  // The cursors of the pages before this one; the last is this page's.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const page = useLoad(() => load(cursor), [...keys, cursor]);
  return {
    ...page,
    first: () => {
      setCursors([]);
      page.reload();
    },
    hasPrevious: cursors.length > 0,
    previous: () => setCursors(cursors.slice(0, -1)),
    next: () => page.value?.cursor !== undefined && setCursors([...cursors, page.value.cursor]),
  };
}

export function Pager(props: { pages: Pages }) {
  const { pages } = props;
  return (
    <nav class="pager" aria-label={t('pager.pages')}>
      <button type="button" disabled={!pages.hasPrevious} onClick={pages.previous}>
        {t('pager.previous')}
      </button>
      <button type="button" disabled={pages.value?.cursor === undefined} onClick={pages.next}>
        {t('pager.next')}
      </button>
    </nav>
  );
}
