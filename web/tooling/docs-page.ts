// The docs page's tables of elements and attributes, generated at build time (and by the dev server) from
// the settings schema and the element registry (web/tooling/settings-docs.ts), so the page cannot state a
// default or a range the code does not have. web/docs.html holds a marker for each, `<!-- docs:name -->`.
import type { Plugin } from 'vite';
import { loadWebModule } from './load-web-module';

/** `html` with each `<!-- docs:name -->` marker replaced by `sections[name]`; a marker without a section, or a section without a marker, is an error. */
export function fillDocsMarkers(html: string, sections: Record<string, string>): string {
  const used = new Set<string>();
  const filled = html.replace(/<!-- docs:([\w-]+) -->/g, (marker, name: string) => {
    if (!(name in sections)) throw new Error(`docs-page: no generated section for ${marker}`);
    used.add(name);
    return sections[name];
  });
  const unused = Object.keys(sections).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`docs-page: no <!-- docs:${unused[0]} --> marker for a generated section`);
  return filled;
}

export function docsPage(page: string): Plugin {
  return {
    name: 'docs-page-tables',
    transformIndexHtml: {
      order: 'pre',
      async handler(html, context) {
        if (!context.filename.endsWith(page)) return html;
        const docs = await loadWebModule<typeof import('./settings-docs')>('tooling/settings-docs.ts');
        return fillDocsMarkers(html, docs.docsSections());
      },
    },
  };
}
