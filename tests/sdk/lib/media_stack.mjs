// The media suite's own stack: a mock provider and a gateway whose channels enable OpenAI's media
// endpoints (docs/media.md), apart from the protocol matrix's so that its 429s, key pauses and
// restart touch nothing else. Every channel has its own upstream key, so the mock's journal tells
// which channel a request went through.
import { Stack } from './stack.mjs';

/** The gateway keys: the one the tests use, and another tenant's. */
export const MEDIA_KEY = 'sk-sdk-media';
export const OTHER_TENANT_KEY = 'sk-sdk-media-other';

/** The media models of the main channel. */
export const MEDIA_MODELS = {
  image: 'gpt-image-1',
  video: 'sora-2',
  speech: 'tts-1',
  transcription: 'whisper-1',
  tokenTranscription: 'gpt-4o-transcribe',
  embedding: 'text-embedding-3-small',
};

/** The model only the two failover channels serve: "limited" (tried first, always 429) and
 *  "spare". A 429 pauses the limited key for this model: no other test may use it. */
export const FAILOVER_MODEL = 'text-embedding-3-large';
/** The model only the two video channels of the affinity test serve: "video-a" (tried first,
 *  fails its first request with a 503) and "video-b", where the job is therefore created. */
export const AFFINITY_MODEL = 'sora-2-pro';

/** Each channel's upstream key, as the mock sees it in `authorization: Bearer …`. */
export const UPSTREAM_KEYS = {
  main: 'sk-up-media-main',
  limited: 'sk-up-limited',
  spare: 'sk-up-spare',
  videoA: 'sk-up-video-a',
  videoB: 'sk-up-video-b',
};

/** The retry delay of the limited channel's 429 (seconds). */
export const LIMITED_RETRY_AFTER = 30;

const kAllMedia = '{images: true, videos: true, speech: true, transcriptions: true, embeddings: true}';

function mediaConfigYaml(mockUrl, stateDir) {
  const channel = (name, key, models, media, priority, fault) =>
    `  - {name: ${name}, protocol: openai-chat, base_url: "${mockUrl}", keys: [${key}], ` +
    `models: [${models.join(', ')}], media: ${media}, priority: ${priority}` +
    (fault ? `, headers: {x-mock-fault: "${fault}"}` : '') + '}';
  return [
    'listen: 127.0.0.1:0',
    '# Stopped with SIGTERM (and restarted): no load balancer to wait for.',
    'server: {lame_duck_ms: 0}',
    'gateway_keys:',
    `  - {name: media, key: ${MEDIA_KEY}, strategy: sequential}`,
    `  - {name: other, key: ${OTHER_TENANT_KEY}, strategy: sequential}`,
    'log: {access_log: off}',
    `state_dir: ${JSON.stringify(stateDir)}`,
    'channels:',
    channel('media-main', UPSTREAM_KEYS.main, Object.values(MEDIA_MODELS), kAllMedia, 0),
    channel('limited', UPSTREAM_KEYS.limited, [FAILOVER_MODEL], '{embeddings: true}', 10,
            `429=${LIMITED_RETRY_AFTER}`),
    channel('spare', UPSTREAM_KEYS.spare, [FAILOVER_MODEL], '{embeddings: true}', 0),
    channel('video-a', UPSTREAM_KEYS.videoA, [AFFINITY_MODEL], '{videos: true}', 10,
            'fail-nth=1:503@video-a'),
    channel('video-b', UPSTREAM_KEYS.videoB, [AFFINITY_MODEL], '{videos: true}', 0),
    '',
  ].join('\n');
}

/** A stack (lib/stack.mjs) with the media channels above; `restartGateway()` keeps its state. */
export function mediaStack() {
  return new Stack({ config: mediaConfigYaml });
}

/** The upstream key a journal entry was sent with. */
export function upstreamKeyOf(entry) {
  const header = entry.headers.find(([name]) => name.toLowerCase() === 'authorization');
  return header?.[1].replace(/^Bearer /, '');
}
