// Downloads a weights file once per page (every caller shares the one request); a failed download is
// forgotten, so the next call tries again. The messages are the reader's: they say what failed.
const downloads = new Map<string, Promise<Uint8Array>>();

export function fetchWeightsOnce(url: string, what: string): Promise<Uint8Array> {
  let download = downloads.get(url);
  if (!download) {
    download = (async () => {
      let response: Response;
      try {
        response = await fetch(url, { credentials: 'same-origin' });
      } catch (error) {
        throw new Error(`${what} could not be downloaded (${error instanceof Error ? error.message : String(error)})`);
      }
      if (!response.ok) throw new Error(`${what} could not be downloaded: the server answered ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    })().catch((error: unknown) => {
      downloads.delete(url);
      throw error;
    });
    downloads.set(url, download);
  }
  return download;
}
