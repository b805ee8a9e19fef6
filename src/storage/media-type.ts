/** The kinds of stored media, as uploads and media sends name them. */
export const MEDIA_TYPES = ['image', 'video', 'document', 'audio'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
