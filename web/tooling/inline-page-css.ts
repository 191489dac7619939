// Inlines the page's own stylesheet into the walkthrough page's HTML. It is small (~4 KB) and
// render-blocking: as a <link> it costs the first paint one more round trip after the HTML, which on
// a phone's connection is most of the time to first paint. Under a strict CSP (style-src 'self'), a
// host adds the hash the build prints, as for the prerendered walkthrough's <style>.
import type { Plugin } from 'vite';
import { styleHash } from './prerender-walkthrough';

const STYLESHEET = /<link rel="stylesheet"[^>]*?href="\.\/([^"]+\.css)"[^>]*>/g;

export function inlinePageCss(pages: readonly string[]): Plugin {
  return {
    name: 'inline-page-css',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        if (!context.bundle || !pages.some((page) => context.filename.endsWith(page))) return html;
        let inlined = 0;
        const result = html.replace(STYLESHEET, (_tag, file: string) => {
          const asset = context.bundle![file];
          if (!asset || asset.type !== 'asset') throw new Error(`inline-page-css: ${file} is not in the bundle`);
          const css = String(asset.source);
          if (/<\/style/i.test(css)) throw new Error(`inline-page-css: ${file} contains </style`);
          inlined++;
          this.info?.(`inlined ${file}; its <style> is ${styleHash(css)} for a CSP's style-src`);
          return `<style>${css}</style>`;
        });
        if (inlined === 0) throw new Error(`inline-page-css: ${context.filename} links no stylesheet to inline`);
        return result;
      },
    },
  };
}
