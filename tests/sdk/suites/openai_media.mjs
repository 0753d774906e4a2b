// openai (official Node SDK): the media endpoints — images, video jobs, speech, transcriptions,
// embeddings — through llmux to its mock provider (lib/media_stack.mjs), including a failover on
// a 429 and a video job that keeps its channel across a restart of the gateway.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import OpenAI, { BadRequestError, NotFoundError, toFile } from 'openai';

import { expectSdkError } from '../lib/expect.mjs';
import {
  AFFINITY_MODEL, FAILOVER_MODEL, MEDIA_KEY, MEDIA_MODELS, OTHER_TENANT_KEY, UPSTREAM_KEYS,
  upstreamKeyOf,
} from '../lib/media_stack.mjs';

const kPngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A 1×1 PNG to upload for an edit. */
const kUploadPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64');

/** Output tokens the mock counts per image of medium quality (GPT image models answer `quality:
 *  "medium"` for `auto`), and the input image tokens of each uploaded image (docs/mock-provider.md). */
const kMediumImageTokens = 1056;
const kEditImageTokens = 194;

/** Speech and transcriptions: the mock's WAV is 24 kHz 16-bit mono; its speech lasts 200 ms plus
 *  15 ms a character. */
const kWavBytesPerSecond = 24000 * 2;
const kSpeechInput = 'Hello from the media suite';

function mediaClient(stack, apiKey = MEDIA_KEY) {
  // No retries: a failure must show as it is. Every call has the client's timeout.
  return new OpenAI({ apiKey, baseURL: `${stack.gatewayUrl}/v1`, maxRetries: 0, timeout: 10000 });
}

/** A WAV file of `ms` milliseconds of silence, 24 kHz 16-bit mono: what the mock reads a
 *  duration from. */
function silentWav(ms) {
  const dataBytes = Math.round((kWavBytesPerSecond * ms) / 1000);
  const wav = Buffer.alloc(44 + dataBytes);
  wav.write('RIFF', 0, 'latin1');
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write('WAVEfmt ', 8, 'latin1');
  wav.writeUInt32LE(16, 16);        // fmt chunk size
  wav.writeUInt16LE(1, 20);         // PCM
  wav.writeUInt16LE(1, 22);         // mono
  wav.writeUInt32LE(24000, 24);     // sample rate
  wav.writeUInt32LE(kWavBytesPerSecond, 28);
  wav.writeUInt16LE(2, 32);         // block align
  wav.writeUInt16LE(16, 34);        // bits per sample
  wav.write('data', 36, 'latin1');
  wav.writeUInt32LE(dataBytes, 40);
  return wav;
}

/** The bytes of a journal entry's request or response body (`which`: 'body', 'response_body'). */
function journalBytes(entry, which) {
  if (entry[which] !== null && entry[which] !== undefined) return Buffer.from(entry[which], 'utf8');
  return Buffer.from(entry[`${which}_base64`], 'base64');
}

/** The one journal entry after `mark` (the SDK call made one upstream request), sent with the
 *  main channel's key to `path`. */
async function oneUpstreamCall(stack, mark, method, path) {
  const calls = await stack.upstreamCalls(mark, 1);
  assert.equal(calls.length, 1,
               `expected one upstream request, got ${calls.map((c) => c.path).join(', ')}`);
  const [call] = calls;
  assert.equal(call.method, method);
  assert.equal(call.path, path);
  assert.equal(call.status, 200);
  assert.equal(upstreamKeyOf(call), UPSTREAM_KEYS.main);
  return call;
}

/** A base64 float32 embedding (what the mock sends when the SDK asks for base64) as numbers. */
function decodeEmbedding(base64) {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
}

function assertUnitVector(vector, length, what) {
  assert.equal(vector.length, length, `${what}: length`);
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  assert.ok(Math.abs(norm - 1) < 1e-3, `${what}: norm ${norm}, expected a unit vector`);
}

/** The mock's token count of an embedding input: bytes / 4 + 1. */
function embeddingTokens(text) {
  return Math.floor(Buffer.byteLength(text, 'utf8') / 4) + 1;
}

/** An MP4 the mock made: an `ftyp` box of brand isom first, 16 KiB a second of video. */
function assertMp4(bytes, seconds) {
  assert.equal(bytes.subarray(4, 12).toString('latin1'), 'ftypisom',
               `not an MP4: ${bytes.subarray(0, 16).toString('hex')}`);
  assert.ok(bytes.length >= seconds * 16 * 1024, `${bytes.length} bytes for ${seconds} s`);
}

/** Retrieves the job until it is completed (at most `maxPolls`); returns the polls' statuses. */
async function pollUntilCompleted(client, id, maxPolls) {
  const statuses = [];
  for (let i = 0; i < maxPolls; i += 1) {
    const job = await client.videos.retrieve(id);
    assert.equal(job.id, id);
    assert.equal(job.object, 'video');
    statuses.push(job.status);
    if (job.status === 'completed') {
      assert.equal(job.progress, 100);
      assert.ok(Number.isInteger(job.completed_at), `completed_at: ${job.completed_at}`);
      return statuses;
    }
    assert.equal(job.status, 'in_progress', `poll ${i + 1}`);
  }
  assert.fail(`job ${id} not completed after ${maxPolls} polls: ${statuses.join(', ')}`);
}

export function registerOpenAiMedia(stack) {
  const client = () => mediaClient(stack);

  describe('openai media', () => {
    test('images.generate: two b64_json PNGs and usage, as the upstream answered', async () => {
      const mark = await stack.journalMark();
      const answer = await client().images.generate({
        model: MEDIA_MODELS.image, prompt: 'A lighthouse at dusk', n: 2,
      });
      assert.equal(answer.data.length, 2);
      const images = answer.data.map((image) => Buffer.from(image.b64_json, 'base64'));
      for (const image of images) {
        assert.deepEqual(image.subarray(0, 8), kPngSignature, 'a PNG');
      }
      assert.notDeepEqual(images[0], images[1], 'each of n differs');
      assert.equal(answer.output_format, 'png');
      assert.equal(answer.usage.output_tokens, 2 * kMediumImageTokens);
      assert.equal(answer.usage.total_tokens, answer.usage.input_tokens + answer.usage.output_tokens);

      const call = await oneUpstreamCall(stack, mark, 'POST', '/v1/images/generations');
      const sent = JSON.parse(call.body);
      assert.equal(sent.model, MEDIA_MODELS.image);
      assert.equal(sent.n, 2);
      assert.deepEqual(answer, JSON.parse(call.response_body), 'the answer as the upstream sent it');
    });

    test('images.edit: an uploaded PNG (toFile) reaches the upstream whole', async () => {
      const mark = await stack.journalMark();
      const answer = await client().images.edit({
        model: MEDIA_MODELS.image,
        prompt: 'Make it blue',
        image: await toFile(kUploadPng, 'pixel.png', { type: 'image/png' }),
      });
      assert.equal(answer.data.length, 1);
      assert.deepEqual(Buffer.from(answer.data[0].b64_json, 'base64').subarray(0, 8), kPngSignature);
      assert.equal(answer.usage.input_tokens_details.image_tokens, kEditImageTokens,
                   'one input image counted');
      assert.equal(answer.usage.output_tokens, kMediumImageTokens);

      const call = await oneUpstreamCall(stack, mark, 'POST', '/v1/images/edits');
      assert.match(call.headers.find(([n]) => n.toLowerCase() === 'content-type')[1],
                   /^multipart\/form-data; boundary=/);
      const form = journalBytes(call, 'body');
      assert.ok(form.includes(kUploadPng), 'the uploaded PNG bytes are in the forwarded form');
      assert.ok(form.includes(`\r\n\r\n${MEDIA_MODELS.image}\r\n`), 'the model field');
      assert.deepEqual(answer, JSON.parse(call.response_body));
    });

    test('videos: create, retrieve until completed (x-mock-video-polls), downloadContent',
         async () => {
           const mark = await stack.journalMark();
           // The per-request header reaches the mock: the job completes on its 2nd poll.
           const job = await client().videos.create(
             { model: MEDIA_MODELS.video, prompt: 'Waves on a beach', seconds: '4' },
             { headers: { 'x-mock-video-polls': '2' } });
           assert.match(job.id, /^video_[0-9a-f]{48}$/);
           assert.equal(job.status, 'queued');
           assert.equal(job.model, MEDIA_MODELS.video);
           assert.equal(job.seconds, '4');

           // Not ready yet: the upstream's 400, as the SDK's BadRequestError.
           const early = await expectSdkError(client().videos.downloadContent(job.id),
                                              BadRequestError, 400);
           assert.equal(early.code, 'video_not_ready');

           assert.deepEqual(await pollUntilCompleted(client(), job.id, 5),
                            ['in_progress', 'completed']);
           const content = await client().videos.downloadContent(job.id);
           assert.equal(content.headers.get('content-type'), 'video/mp4');
           const video = Buffer.from(await content.arrayBuffer());
           assertMp4(video, 4);

           // create, the early download, two polls, the download: all on the main channel.
           const calls = await stack.upstreamCalls(mark, 5);
           assert.deepEqual(calls.map((c) => `${c.method} ${c.path} ${c.status}`), [
             'POST /v1/videos 200',
             `GET /v1/videos/${job.id}/content 400`,
             `GET /v1/videos/${job.id} 200`,
             `GET /v1/videos/${job.id} 200`,
             `GET /v1/videos/${job.id}/content 200`,
           ]);
           for (const call of calls) assert.equal(upstreamKeyOf(call), UPSTREAM_KEYS.main);
           assert.match(calls[0].headers.find(([n]) => n.toLowerCase() === 'content-type')[1],
                        /^multipart\/form-data; boundary=/, 'the SDK sends a form');
           assert.deepEqual(video, journalBytes(calls[4], 'response_body'), 'the bytes sent');
         });

    test('audio.speech.create: a WAV file, byte for byte what the upstream sent', async () => {
      const mark = await stack.journalMark();
      const speech = await client().audio.speech.create({
        model: MEDIA_MODELS.speech, voice: 'alloy', input: kSpeechInput, response_format: 'wav',
      });
      assert.equal(speech.headers.get('content-type'), 'audio/wav');
      const wav = Buffer.from(await speech.arrayBuffer());
      assert.equal(wav.subarray(0, 4).toString('latin1'), 'RIFF');
      assert.equal(wav.subarray(8, 12).toString('latin1'), 'WAVE');
      assert.equal(wav.readUInt32LE(4), wav.length - 8, 'the RIFF size covers the whole file');
      const expectedMs = 200 + 15 * kSpeechInput.length;
      assert.equal(wav.length - 44, (kWavBytesPerSecond * expectedMs) / 1000, 'its duration');

      const call = await oneUpstreamCall(stack, mark, 'POST', '/v1/audio/speech');
      assert.equal(JSON.parse(call.body).input, kSpeechInput);
      assert.deepEqual(wav, journalBytes(call, 'response_body'));
    });

    test('audio.transcriptions.create: whisper-1 verbose_json of an uploaded WAV', async () => {
      const upload = silentWav(1500);
      const mark = await stack.journalMark();
      const transcription = await client().audio.transcriptions.create({
        model: MEDIA_MODELS.transcription,
        file: await toFile(upload, 'silence.wav', { type: 'audio/wav' }),
        response_format: 'verbose_json',
      });
      assert.equal(transcription.duration, 1.5, 'read from the uploaded WAV header');
      assert.match(transcription.text, /\w/);
      assert.ok(transcription.segments.length >= 1);
      assert.equal(transcription.segments.at(-1).end, 1.5);
      assert.equal(transcription.usage.type, 'duration');
      assert.ok(transcription.usage.seconds >= 1.5, `usage: ${JSON.stringify(transcription.usage)}`);

      const call = await oneUpstreamCall(stack, mark, 'POST', '/v1/audio/transcriptions');
      const form = journalBytes(call, 'body');
      assert.ok(form.includes(upload), 'the uploaded file whole in the forwarded form');
      assert.ok(form.includes('\r\n\r\nverbose_json\r\n'), 'the response_format field');
      assert.deepEqual(transcription, JSON.parse(call.response_body));
    });

    test('audio.transcriptions.create: gpt-4o-transcribe, token usage, not streamed and streamed',
         async () => {
           const file = async () => toFile(silentWav(2000), 'silence.wav', { type: 'audio/wav' });
           let mark = await stack.journalMark();
           const transcription = await client().audio.transcriptions.create({
             model: MEDIA_MODELS.tokenTranscription, file: await file(),
           });
           assert.match(transcription.text, /\w/);
           assert.equal(transcription.usage.type, 'tokens');
           assert.equal(transcription.usage.input_token_details.audio_tokens, 20, '10 a second');
           assert.equal(transcription.usage.total_tokens,
                        transcription.usage.input_tokens + transcription.usage.output_tokens);
           let call = await oneUpstreamCall(stack, mark, 'POST', '/v1/audio/transcriptions');
           assert.deepEqual(transcription, JSON.parse(call.response_body));

           mark = await stack.journalMark();
           const stream = await client().audio.transcriptions.create({
             model: MEDIA_MODELS.tokenTranscription, file: await file(), stream: true,
           });
           let deltas = '';
           let done;
           for await (const event of stream) {
             if (event.type === 'transcript.text.delta') {
               assert.equal(done, undefined, 'no delta after the done event');
               deltas += event.delta;
             } else {
               assert.equal(event.type, 'transcript.text.done');
               done = event;
             }
           }
           assert.ok(done, 'a transcript.text.done event');
           assert.equal(deltas, done.text);
           assert.equal(done.text, transcription.text, 'the same file, the same words');
           assert.deepEqual(done.usage, transcription.usage);
           call = await oneUpstreamCall(stack, mark, 'POST', '/v1/audio/transcriptions');
           assert.ok(journalBytes(call, 'body').includes('\r\n\r\ntrue\r\n'), 'the stream field');
         });

    test('embeddings.create: two inputs, their vectors and prompt_tokens', async () => {
      const input = ['The quick brown fox', 'jumps over the lazy dog, twice'];
      const mark = await stack.journalMark();
      const answer = await client().embeddings.create({ model: MEDIA_MODELS.embedding, input });
      assert.equal(answer.data.length, 2);
      answer.data.forEach((item, i) => {
        assert.equal(item.index, i);
        assertUnitVector(item.embedding, 1536, `input ${i}`);
      });
      assert.notDeepEqual(answer.data[0].embedding, answer.data[1].embedding);
      assert.equal(answer.usage.prompt_tokens, embeddingTokens(input[0]) + embeddingTokens(input[1]));
      assert.equal(answer.usage.total_tokens, answer.usage.prompt_tokens);

      // The SDK asks for base64 and decodes it: the vectors are the upstream's, exactly.
      const call = await oneUpstreamCall(stack, mark, 'POST', '/v1/embeddings');
      const sent = JSON.parse(call.body);
      assert.equal(sent.encoding_format, 'base64');
      assert.deepEqual(sent.input, input);
      const upstream = JSON.parse(call.response_body);
      answer.data.forEach((item, i) => {
        assert.deepEqual(Array.from(item.embedding), decodeEmbedding(upstream.data[i].embedding));
      });
    });

    test('a 429 from the first channel fails over to the second', async () => {
      const mark = await stack.journalMark();
      const answer = await client().embeddings.create({ model: FAILOVER_MODEL, input: 'failover' });
      assertUnitVector(answer.data[0].embedding, 3072, FAILOVER_MODEL);

      const calls = await stack.upstreamCalls(mark, 2);
      assert.deepEqual(calls.map((c) => [c.path, c.status, upstreamKeyOf(c)]), [
        ['/v1/embeddings', 429, UPSTREAM_KEYS.limited],
        ['/v1/embeddings', 200, UPSTREAM_KEYS.spare],
      ]);
      assert.deepEqual(Array.from(answer.data[0].embedding),
                       decodeEmbedding(JSON.parse(calls[1].response_body).data[0].embedding),
                       'the answer is the second channel\'s');
      assert.equal(answer.usage.prompt_tokens, embeddingTokens('failover'));
    });

    test('a video job keeps its channel and key across a gateway restart', async () => {
      const mark = await stack.journalMark();
      // video-a comes first (priority) but fails its first request: the job is made on video-b.
      const job = await client().videos.create({ model: AFFINITY_MODEL, prompt: 'A fox', seconds: '4' });
      assert.equal(job.status, 'queued');
      const created = await stack.upstreamCalls(mark, 2);
      assert.deepEqual(created.map((c) => [c.method, c.path, c.status, upstreamKeyOf(c)]), [
        ['POST', '/v1/videos', 503, UPSTREAM_KEYS.videoA],
        ['POST', '/v1/videos', 200, UPSTREAM_KEYS.videoB],
      ]);
      assert.equal(JSON.parse(created[1].response_body).id, job.id);

      const first = await client().videos.retrieve(job.id);
      assert.equal(first.status, 'in_progress');
      await expectSdkError(mediaClient(stack, OTHER_TENANT_KEY).videos.retrieve(job.id),
                           NotFoundError, 404);

      await stack.restartGateway('SIGTERM');

      // Another tenant still cannot see it; the tenant polls it to completion and downloads it.
      const refused = await expectSdkError(
        mediaClient(stack, OTHER_TENANT_KEY).videos.retrieve(job.id), NotFoundError, 404);
      assert.match(refused.message, new RegExp(job.id));
      assert.deepEqual(await pollUntilCompleted(client(), job.id, 5), ['in_progress', 'completed']);
      const video = Buffer.from(await (await client().videos.downloadContent(job.id)).arrayBuffer());
      assertMp4(video, 4);

      // Every request for the job went to the channel and key that created it.
      const forJob = (await stack.upstreamCalls(mark, 6)).filter((c) => c.path.includes(job.id));
      assert.deepEqual(forJob.map((c) => `${c.method} ${c.path} ${c.status}`), [
        `GET /v1/videos/${job.id} 200`,
        `GET /v1/videos/${job.id} 200`,
        `GET /v1/videos/${job.id} 200`,
        `GET /v1/videos/${job.id}/content 200`,
      ]);
      for (const call of forJob) assert.equal(upstreamKeyOf(call), UPSTREAM_KEYS.videoB, call.path);

      // Routed afresh, a new job goes to video-a: the polls above followed the job, not the
      // channels' order.
      const other = await client().videos.create({ model: AFFINITY_MODEL, prompt: 'A hare', seconds: '4' });
      const [control] = (await stack.upstreamCalls(mark, 7)).filter((c) => c.method === 'POST' &&
        c.status === 200 && JSON.parse(c.response_body).id === other.id);
      assert.equal(upstreamKeyOf(control), UPSTREAM_KEYS.videoA);
    });
  });
}
