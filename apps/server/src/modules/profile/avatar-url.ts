/**
 * The URL an avatar is served at (the value stored in users.img_url; the web app loads it in an <img> as it is). Its
 * own module, so that code that only needs the address (documents/file-refs.ts, and through it the export jobs) does
 * not load the image libraries behind profile.service.ts's avatar processing.
 */
export const avatarUrl = (key: string) => `/api/user/avatar?key=${key}`;
