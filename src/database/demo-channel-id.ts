/**
 * The id of the demo workspace's sandbox channel. It is fixed (one demo workspace per database), so
 * the request examples of the OpenAPI document, served and checked in alike, name the real channel
 * and run in Swagger UI as they stand.
 */
export const DEMO_CHANNEL_ID = '0193a000-de30-7000-8000-00000000c4a1';
