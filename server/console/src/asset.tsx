/**
 * An entity's file (docs/api.md#assets): its type, size and date; an image shown inline, read
 * with the access token as a blob (the page's CSP allows `blob:` images for this alone); a
 * download; and an upload that attaches a file or replaces the one the entity has.
 */
import { useEffect, useState } from 'preact/hooks';
import { downloadAsset, titleOf, uploadAsset, type Entity } from './api';
import { dateTime, locale, t } from './i18n';
import { useLoad } from './load';
import { Problem, useAction } from './parts';

interface FileMetadata {
  'content-type': string;
  'content-length': number;
  'last-modified': number;
  etag: string;
}

/** A blob as an address the page can show or save, given back when no longer needed. */
function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (blob === undefined) {
      setUrl(undefined);
      return;
    }
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return url;
}

export function Asset(props: { org: string; app: string; collection: string; entity: Entity; reload: () => void }) {
  const { entity } = props;
  const params = { orgId: props.org, appId: props.app, collection: props.collection, entityId: entity.uuid };
  const file = entity['file-metadata'] as FileMetadata | undefined;
  const isImage = file?.['content-type'].startsWith('image/') === true;
  const image = useLoad(async () => (isImage ? downloadAsset(params) : undefined), [entity.uuid, file?.etag]);
  const preview = useObjectUrl(image.value);
  const download = useAction();
  const upload = useAction();
  const [chosen, setChosen] = useState<File>();
  const [uploaded, setUploaded] = useState(false);

  const save = () =>
    void download.run(async () => {
      const url = URL.createObjectURL(await downloadAsset(params));
      const link = document.createElement('a');
      link.href = url;
      link.download = titleOf(entity);
      link.click();
      setTimeout(() => URL.revokeObjectURL(url));
    });
  const submit = (event: Event) => {
    event.preventDefault();
    void upload.run(async () => {
      if (chosen === undefined) throw new Error(t('asset.choose_first'));
      await uploadAsset(params, chosen);
      setUploaded(true);
      props.reload();
    });
  };

  return (
    <section class="panel" aria-labelledby="asset-title">
      <h2 id="asset-title">{t('asset.title')}</h2>
      {file === undefined ? (
        <p class="muted">{t('asset.none')}</p>
      ) : (
        <>
          <dl class="facts">
            <dt>{t('asset.type')}</dt>
            <dd class="mono">{file['content-type']}</dd>
            <dt>{t('asset.size')}</dt>
            <dd>{t('asset.bytes', { bytes: file['content-length'].toLocaleString(locale()) })}</dd>
            <dt>{t('asset.modified')}</dt>
            <dd>{dateTime(file['last-modified'])}</dd>
          </dl>
          <Problem error={image.error} />
          {isImage && preview && <img class="preview" src={preview} alt={t('asset.preview_alt', { name: titleOf(entity) })} />}
          <Problem error={download.error} />
          <div class="actions">
            <button type="button" onClick={save} disabled={download.busy}>
              {t('asset.download')}
            </button>
          </div>
        </>
      )}
      <form onSubmit={submit}>
        <div class="field">
          <label for="asset-file">{file === undefined ? t('asset.attach_label') : t('asset.replace_label')}</label>
          <input
            id="asset-file"
            type="file"
            onChange={(event) => {
              setUploaded(false);
              setChosen(event.currentTarget.files?.[0]);
            }}
          />
        </div>
        <Problem error={upload.error} />
        {uploaded && upload.error === undefined && (
          <p class="saved" role="status">
            {t('asset.uploaded')}
          </p>
        )}
        <button type="submit" disabled={upload.busy}>
          {file === undefined ? t('asset.attach') : t('asset.replace')}
        </button>
      </form>
    </section>
  );
}
