/**
 * Types a browser shows as a picture, a sound or a film, without running anything in them. SVG is
 * an image type but a document (it may carry scripts), so it is not one of them.
 */
function isPlainMedia(contentType: string): boolean {
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return /^(image|audio|video)\//.test(type) && type !== 'image/svg+xml';
}

/**
 * Headers of a stored file served from the API's own origin. Whatever the bytes are, they run
 * nothing there: `Content-Security-Policy: sandbox` gives the response an opaque origin with
 * scripts, forms and plugins off, `nosniff` keeps the declared type, and everything but plain
 * images, audio and video (a PDF with /OpenAction JavaScript, HTML, SVG) is a download
 * (`attachment`) rather than a page.
 */
export function storedMediaHeaders(contentType: string, fileName: string): Record<string, string> {
  return {
    'content-type': contentType,
    'content-disposition': `${isPlainMedia(contentType) ? 'inline' : 'attachment'}; filename="${fileName}"`,
    'content-security-policy': 'sandbox',
    'x-content-type-options': 'nosniff',
  };
}
