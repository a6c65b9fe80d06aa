'use strict';
// A Bot API peer on loopback for Strategium's end-to-end tests.
//
// telegram-test-api 4.2.1 as it ships cannot serve aiogram 3; this script starts it with six
// fixes applied from outside the package (none of its files is edited):
//   1. getMe answers a full User with is_bot.
//   2. callback_query updates carry chat_instance and the real message that holds the button.
//   3. getUpdates honours offset (confirm on the next offset, as Telegram does), limit,
//      allowed_updates and the long-poll timeout.
//   4. messages the bot sends keep their chat's type and carry `from` (the bot) and `date` in
//      seconds; edits answer the edited Message.
//   5. sendPhoto and sendDocument take multipart uploads (Node's own Request.formData()) and
//      answer a Message with `photo` or `document`; the bytes can be read back with getFile.
//   6. client routes await the update they add and answer an error instead of leaving an
//      unhandled rejection that would kill the process; webhook delivery sends the secret token.
//
// With BOT_API_EMULATOR_WEBHOOK_RETRY=<seconds> a webhook delivery that fails (unreachable, or
// any answer but 2xx) is tried again every that many seconds, as Telegram does, until it is
// answered 2xx (or for WEBHOOK_GIVE_UP_MS); the user's action is accepted at once. Without it a
// failed delivery is reported to the client route's caller and not tried again. Every attempt
// is kept: POST /getWebhookDeliveries {token}.
//
// Usage: node server.js [PORT]   (PORT or $BOT_API_EMULATOR_PORT; 0 or nothing: any free port)
// Prints "READY <port>" on stdout once listening and nothing else there; logs go to stderr.
// Exits when stdin closes, so it never outlives the test run that started it.

const crypto = require('node:crypto');
const { routes } = require('telegram-test-api/lib/routes/index');
const TelegramServer = require('telegram-test-api');

const HOST = '127.0.0.1';
const STORE_TIMEOUT_SECONDS = Number(process.env.BOT_API_EMULATOR_STORE_TIMEOUT || 3600);
const MAX_POLL_TIMEOUT_SECONDS = 50;
const WEBHOOK_TIMEOUT_MS = 10_000;
const WEBHOOK_RETRY_MS = 1000 * Number(process.env.BOT_API_EMULATOR_WEBHOOK_RETRY || 0);
const WEBHOOK_GIVE_UP_MS = 300_000;
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const USER_UPDATE_STORED = 'StrategiumUserUpdateStored';

class ApiError extends Error {
  constructor(code, description) {
    super(description);
    this.code = code;
  }
}

const badRequest = (description) => new ApiError(400, `Bad Request: ${description}`);

// ---------------------------------------------------------------- identities and chats

function botUser(token) {
  const id = Number.parseInt(String(token).split(':')[0], 10);
  return { id, is_bot: true, first_name: 'Test Bot', username: `test_${id}_bot` };
}

function chatKey(token, chatId) {
  return `${token}|${Number(chatId)}`;
}

function rememberChat(server, token, chat) {
  if (chat && chat.id !== undefined) {
    server.knownChats.set(chatKey(token, chat.id), { ...chat, id: Number(chat.id) });
  }
}

// The chat as users described it when they wrote there, else guessed from the id the way
// Telegram numbers chats: users positive, supergroups below -10^12, basic groups in between.
function chatFor(server, token, chatId) {
  const id = Number(chatId);
  const known = server.knownChats.get(chatKey(token, id));
  if (known) {
    return { ...known };
  }
  if (id > 0) {
    return { id, type: 'private', first_name: 'User' };
  }
  return { id, type: id <= -1_000_000_000_000 ? 'supergroup' : 'group', title: 'Chat' };
}

function toSeconds(date, fallbackMillis) {
  if (date === undefined || date === null) {
    return Math.floor(fallbackMillis / 1000);
  }
  const value = Number(date);
  return value > 100_000_000_000 ? Math.floor(value / 1000) : Math.floor(value);
}

function parseJsonField(value, name) {
  if (typeof value !== 'string') {
    return value;
  }
  try {
    return JSON.parse(value);
  } catch {
    throw badRequest(`can't parse ${name} JSON object`);
  }
}

function requireChatId(params) {
  const chatId = Number(params.chat_id);
  if (params.chat_id === undefined || !Number.isFinite(chatId)) {
    throw badRequest('chat not found');
  }
  return chatId;
}

// ---------------------------------------------------------------- fix 4: bot messages

const MESSAGE_FIELDS = [
  'message_id', 'message_thread_id', 'from', 'chat', 'date', 'edit_date', 'text', 'entities',
  'caption', 'caption_entities', 'photo', 'document', 'reply_markup',
];

// The Bot API Message for a stored bot message (the stored one also keeps what was sent,
// e.g. chat_id, parse_mode or a reply keyboard, for the history).
function botMessage(entry) {
  const message = {};
  for (const field of MESSAGE_FIELDS) {
    if (entry.message[field] !== undefined) {
      message[field] = entry.message[field];
    }
  }
  if (message.reply_markup && !('inline_keyboard' in message.reply_markup)) {
    delete message.reply_markup;
  }
  return message;
}

const originalAddBotMessage = TelegramServer.prototype.addBotMessage;
TelegramServer.prototype.addBotMessage = function addBotMessage(rawMessage, botToken) {
  if (rawMessage.caption_entities !== undefined) {
    rawMessage.caption_entities = parseJsonField(rawMessage.caption_entities, 'caption_entities');
  }
  originalAddBotMessage.call(this, rawMessage, botToken);
  const entry = this.storage.botMessages[this.storage.botMessages.length - 1];
  const message = entry.message;
  message.message_id = entry.messageId;
  if (message.message_thread_id !== undefined) {
    message.message_thread_id = Number(message.message_thread_id);
  }
  message.from = botUser(botToken);
  message.chat = chatFor(this, botToken, message.chat_id);
  message.date = toSeconds(undefined, entry.time);
  return botMessage(entry);
};

function findBotEntry(server, token, chatId, messageId) {
  return server.storage.botMessages.find((entry) => (
    entry.botToken === token
    && entry.messageId === Number(messageId)
    && Number(entry.message.chat_id) === Number(chatId)
  ));
}

function editableEntry(server, token, params) {
  if (params.inline_message_id !== undefined) {
    throw badRequest('inline messages are not emulated');
  }
  const chatId = requireChatId(params);
  const entry = findBotEntry(server, token, chatId, params.message_id);
  if (!entry) {
    throw badRequest('message to edit not found');
  }
  return entry;
}

// Telegram drops the inline keyboard of an edited message unless the edit gives one again.
function editedMarkup(params) {
  return params.reply_markup === undefined
    ? undefined
    : parseJsonField(params.reply_markup, 'reply_markup');
}

function applyEdit(server, entry, changes) {
  const message = entry.message;
  const before = JSON.stringify([message.text, message.caption, message.reply_markup ?? null]);
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) {
      delete message[field];
    } else {
      message[field] = value;
    }
  }
  const after = JSON.stringify([message.text, message.caption, message.reply_markup ?? null]);
  if (before === after) {
    throw badRequest('message is not modified: specified new message content and reply markup'
      + ' are exactly the same as a current content and reply markup of the message');
  }
  message.edit_date = Math.floor(Date.now() / 1000);
  server.emit('EditedMessageText');
  return botMessage(entry);
}

// ---------------------------------------------------------------- fix 2: callback queries

const originalFormatUpdate = TelegramServer.formatUpdate;
TelegramServer.formatUpdate = function formatUpdate(update) {
  const formatted = originalFormatUpdate.call(this, update);
  if (formatted.callback_query) {
    const query = formatted.callback_query;
    const chatId = query.message ? query.message.chat.id : query.from.id;
    query.chat_instance = String(update.callbackQuery.chat_instance ?? chatId);
    if (!query.message) {
      delete query.message;
    }
  } else if (formatted.message) {
    delete formatted.message.botToken;
    formatted.message.date = toSeconds(formatted.message.date, update.time);
  }
  return formatted;
};

function updateType(update) {
  return 'callbackQuery' in update ? 'callback_query' : 'message';
}

// ---------------------------------------------------------------- fix 6: user-side updates

// Stores every user update (so the history shows it), then delivers it by webhook when one is
// set. A failed delivery stays pending, as with Telegram, and is reported to the caller.
TelegramServer.prototype.addUserUpdate = async function addUserUpdate(update) {
  if (!update.botToken) {
    throw badRequest('the update must contain a `botToken` field');
  }
  if (update.message) {
    rememberChat(this, update.botToken, update.message.chat);
  }
  this.storage.userMessages.push(update);
  this.updateId++;
  this.emit(USER_UPDATE_STORED, update.botToken);
  const webhook = this.webhooks[update.botToken];
  if (!webhook) {
    return;
  }
  if (WEBHOOK_RETRY_MS <= 0) {
    await deliverByWebhook(this, webhook, update);
    return;
  }
  try {
    await deliverByWebhook(this, webhook, update);
  } catch (error) {
    if (!(error instanceof ApiError)) {
      throw error;
    }
    deliverAgainLater(this, update, Date.now() + WEBHOOK_GIVE_UP_MS);
  }
};

// Telegram keeps an update it could not deliver and sends it again later, to the webhook set
// then, until an answer is 2xx.
function deliverAgainLater(server, update, giveUpAt) {
  setTimeout(() => {
    const webhook = server.webhooks[update.botToken];
    if (!webhook || Date.now() > giveUpAt) {
      console.error(`emulator: update ${update.updateId} given up: ${update.webhookError}`);
      return;
    }
    deliverByWebhook(server, webhook, update).catch((error) => {
      if (!(error instanceof ApiError)) {
        console.error('emulator:', error);
      }
      deliverAgainLater(server, update, giveUpAt);
    });
  }, WEBHOOK_RETRY_MS);
}

function recordDelivery(server, update, started, status, error) {
  const attempts = (update.webhookAttempts || 0) + 1;
  update.webhookAttempts = attempts;
  if (!server.deliveries.has(update.botToken)) {
    server.deliveries.set(update.botToken, []);
  }
  server.deliveries.get(update.botToken).push({
    update_id: update.updateId,
    attempt: attempts,
    status,
    error: error || null,
    started_ms: started,
    ms: Date.now() - started,
  });
}

async function deliverByWebhook(server, webhook, update) {
  const headers = { 'content-type': 'application/json' };
  if (webhook.secret_token) {
    headers['x-telegram-bot-api-secret-token'] = webhook.secret_token;
  }
  const started = Date.now();
  let response;
  try {
    response = await fetch(webhook.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(TelegramServer.formatUpdate(update)),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
  } catch (error) {
    update.webhookError = `unreachable: ${error.message}`;
    recordDelivery(server, update, started, 0, update.webhookError);
    throw new ApiError(502, `Webhook ${webhook.url} ${update.webhookError}`);
  }
  if (!response.ok) {
    const body = (await response.text()).slice(0, 200);
    update.webhookError = `answered ${response.status}: ${body}`;
    recordDelivery(server, update, started, response.status, update.webhookError);
    throw new ApiError(502, `Webhook ${webhook.url} ${update.webhookError}`);
  }
  recordDelivery(server, update, started, response.status, null);
  update.isRead = true;
  await runWebhookAnswer(server, update.botToken, response);
}

// A webhook may answer with one Bot API method call (aiogram does when handle_in_background
// is off and the handler returns a method): run it as if the bot had called it.
async function runWebhookAnswer(server, token, response) {
  const contentType = response.headers.get('content-type') || '';
  const body = Buffer.from(await response.arrayBuffer());
  let method;
  let forwarded;
  if (contentType.startsWith('multipart/form-data')) {
    const form = await new Request('http://webhook.invalid/', {
      method: 'POST', headers: { 'content-type': contentType }, body,
    }).formData();
    method = form.get('method');
    forwarded = { headers: { 'content-type': contentType }, body };
  } else if (contentType.startsWith('application/json') && body.length > 0) {
    const answer = JSON.parse(body.toString('utf8'));
    method = answer.method;
    forwarded = { headers: { 'content-type': 'application/json' }, body };
  }
  if (typeof method !== 'string' || method === '') {
    return;
  }
  const result = await fetch(`${server.config.apiURL}/bot${token}/${method}`, {
    method: 'POST', ...forwarded, signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
  if (!result.ok) {
    console.error(`emulator: ${method} from a webhook answer failed: ${await result.text()}`);
  }
}

// An update aiogram cannot parse would stall its polling (the batch is retried for ever), so
// the scripted users' mistakes are refused here instead.
function requireUser(user, what) {
  if (!user || user.id === undefined || typeof user.first_name !== 'string') {
    throw badRequest(`the ${what} needs \`from\` with \`id\` and \`first_name\``);
  }
}

function newMessageUpdate(server, body, { command }) {
  const { botToken, ...message } = body;
  requireUser(message.from, 'message');
  if (!message.chat || message.chat.id === undefined || !message.chat.type) {
    throw badRequest('the message needs `chat` with `id` and `type`');
  }
  if (typeof message.text !== 'string') {
    throw badRequest('the message needs `text`');
  }
  if (command && !message.entities) {
    const end = message.text.indexOf(' ');
    message.entities = [
      { offset: 0, length: end === -1 ? message.text.length : end, type: 'bot_command' },
    ];
  }
  message.date = toSeconds(message.date, Date.now());
  const update = { ...server.getCommonFields(botToken), message };
  update.messageId = server.messageId;
  server.messageId++;
  return update;
}

// The button press: the message must be a bot message in storage and the button must be on it.
function newCallbackUpdate(server, body) {
  const { botToken } = body;
  requireUser(body.from, 'callback');
  const reference = body.message || {};
  const messageId = reference.message_id ?? body.message_id;
  const chatId = (reference.chat && reference.chat.id) ?? body.chat_id ?? body.from.id;
  if (messageId === undefined) {
    throw badRequest('the callback needs `message.message_id` of the bot message pressed');
  }
  const entry = findBotEntry(server, botToken, chatId, messageId);
  if (!entry) {
    throw badRequest(`no bot message ${messageId} in chat ${chatId}`);
  }
  const keyboard = (entry.message.reply_markup || {}).inline_keyboard || [];
  const pressed = keyboard.flat().some((button) => button.callback_data === body.data);
  if (!pressed) {
    throw badRequest(`no button with callback_data ${JSON.stringify(body.data)} on message ${messageId}`);
  }
  const callbackQuery = { ...body, message: botMessage(entry) };
  const update = { ...server.getCommonFields(botToken), callbackQuery, callbackId: server.callbackId };
  server.callbackId++;
  return update;
}

function clientRoute(path, handler) {
  return (app, server) => {
    app.post(path, (req, res) => {
      Promise.resolve()
        .then(() => handler(server, req.body || {}))
        .then(
          (result) => res.json({ ok: true, result: result ?? null }),
          (error) => replyError(res, error),
        );
    });
  };
}

function addedUpdate(update) {
  return update.callbackQuery
    ? { update_id: update.updateId, callback_query_id: String(update.callbackId) }
    : { update_id: update.updateId, message_id: update.messageId };
}

const clientRoutes = [
  clientRoute('/sendMessage', async (server, body) => {
    const update = newMessageUpdate(server, body, { command: false });
    await server.addUserUpdate(update);
    server.emit('AddedUserMessage');
    return addedUpdate(update);
  }),
  clientRoute('/sendCommand', async (server, body) => {
    const update = newMessageUpdate(server, body, { command: true });
    await server.addUserUpdate(update);
    server.emit('AddedUserCommand');
    return addedUpdate(update);
  }),
  clientRoute('/sendCallback', async (server, body) => {
    const update = newCallbackUpdate(server, body);
    await server.addUserUpdate(update);
    server.emit('AddedUserCallbackQuery');
    return addedUpdate(update);
  }),
  clientRoute('/getRequestCounts', (server, body) => (
    Object.fromEntries(server.requestCounts.get(body.token) || new Map())
  )),
  clientRoute('/getWebhookDeliveries', (server, body) => (
    server.deliveries.get(body.token) || []
  )),
];

// ---------------------------------------------------------------- bot routes

function replyError(res, error) {
  const code = error instanceof ApiError ? error.code : 500;
  if (!(error instanceof ApiError)) {
    console.error('emulator:', error);
  }
  if (!res.headersSent) {
    res.status(code).json({ ok: false, error_code: code, description: String(error.message) });
  }
}

function botMethod(name, handler) {
  return (app, server) => {
    app.all(`/bot:token/${name}`, (req, res) => {
      const params = { ...req.query, ...(req.body || {}) };
      Promise.resolve()
        .then(() => handler(server, req.params.token, params, req.files || {}, res))
        .then(
          (result) => {
            if (!res.headersSent) {
              res.json({ ok: true, result });
            }
          },
          (error) => replyError(res, error),
        );
    });
  };
}

async function readMultipart(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_UPLOAD_BYTES) {
      throw new ApiError(413, 'Request Entity Too Large');
    }
    chunks.push(chunk);
  }
  const form = await new Request('http://emulator.invalid/', {
    method: 'POST',
    headers: { 'content-type': req.headers['content-type'] },
    body: Buffer.concat(chunks),
  }).formData();
  const fields = {};
  const files = {};
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') {
      fields[name] = value;
    } else {
      files[name] = value;
    }
  }
  return { fields, files };
}

// Counts every bot request by method (for the tests' polling figures) and parses multipart
// bodies, which the package's express parsers leave alone.
const countAndParse = (app, server) => {
  app.all('/bot:token/:method', (req, res, next) => {
    const counts = server.requestCounts.get(req.params.token) || new Map();
    counts.set(req.params.method, (counts.get(req.params.method) || 0) + 1);
    server.requestCounts.set(req.params.token, counts);
    if (!(req.headers['content-type'] || '').startsWith('multipart/form-data')) {
      next();
      return;
    }
    readMultipart(req).then(
      ({ fields, files }) => {
        req.body = fields;
        req.files = files;
        next();
      },
      (error) => replyError(res, error instanceof ApiError ? error : badRequest(error.message)),
    );
  });
};

// ---------------------------------------------------------------- fix 3: getUpdates

function parseAllowedUpdates(value) {
  const list = parseJsonField(value, 'allowed_updates');
  return Array.isArray(list) ? list : undefined;
}

function pendingUpdates(server, token) {
  const allowed = server.allowedUpdates.get(token);
  return server.storage.userMessages
    .filter((update) => (
      update.botToken === token
      && !update.isRead
      && (!allowed || allowed.length === 0 || allowed.includes(updateType(update)))
    ))
    .sort((a, b) => a.updateId - b.updateId);
}

function confirmUpdates(server, token, offset) {
  if (offset < 0) {
    const pending = pendingUpdates(server, token);
    pending.slice(0, Math.max(0, pending.length + offset)).forEach((update) => {
      update.isRead = true;
    });
    return;
  }
  server.storage.userMessages.forEach((update) => {
    if (update.botToken === token && update.updateId < offset) {
      update.isRead = true;
    }
  });
}

// Resolves when an update for this bot is stored, when the timeout passes, or when the
// client goes away (aiogram cancels its long poll on shutdown).
function waitForUserUpdate(server, token, timeoutMs, res) {
  return new Promise((resolve) => {
    let timer;
    const finish = () => {
      clearTimeout(timer);
      server.off(USER_UPDATE_STORED, onStored);
      res.off('close', finish);
      resolve();
    };
    const onStored = (storedToken) => {
      if (storedToken === token) {
        finish();
      }
    };
    timer = setTimeout(finish, timeoutMs);
    server.on(USER_UPDATE_STORED, onStored);
    res.on('close', finish);
  });
}

async function getUpdates(server, token, params, _files, res) {
  if (server.webhooks[token]) {
    throw new ApiError(409, "Conflict: can't use getUpdates method while webhook is active;"
      + ' use deleteWebhook to delete the webhook first');
  }
  const allowed = parseAllowedUpdates(params.allowed_updates);
  if (allowed) {
    server.allowedUpdates.set(token, allowed);
  }
  if (params.offset !== undefined && params.offset !== '') {
    confirmUpdates(server, token, Math.trunc(Number(params.offset)));
  }
  const limit = Math.min(100, Math.max(1, Math.trunc(Number(params.limit ?? 100)) || 100));
  const timeout = Math.min(MAX_POLL_TIMEOUT_SECONDS, Math.max(0, Number(params.timeout ?? 0) || 0));
  let updates = pendingUpdates(server, token);
  if (updates.length === 0 && timeout > 0) {
    await waitForUserUpdate(server, token, timeout * 1000, res);
    updates = pendingUpdates(server, token);
  }
  return updates.slice(0, limit).map((update) => TelegramServer.formatUpdate(update));
}

// ---------------------------------------------------------------- fix 5: uploads

function imageSize(bytes) {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (bytes.length >= 24 && bytes.subarray(0, 8).equals(png)) {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let at = 2;
    while (at + 9 < bytes.length && bytes[at] === 0xff) {
      const marker = bytes[at + 1];
      const length = bytes.readUInt16BE(at + 2);
      const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
      if (isFrame) {
        return { width: bytes.readUInt16BE(at + 7), height: bytes.readUInt16BE(at + 5) };
      }
      at += 2 + length;
    }
  }
  return undefined;
}

// aiohttp (so aiogram) sends every upload as application/octet-stream; Telegram looks inside.
function mimeType(bytes, declared) {
  if (declared && declared !== 'application/octet-stream') {
    return declared;
  }
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return 'image/png';
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    return 'image/jpeg';
  }
  return 'application/octet-stream';
}

// The file a media method sends: an upload (a part named by the field or by "attach://name"),
// or the file_id of a file the emulator already holds.
async function inputFile(server, token, params, files, field) {
  const value = params[field];
  let upload = files[field];
  if (!upload && typeof value === 'string' && value.startsWith('attach://')) {
    upload = files[value.slice('attach://'.length)];
  }
  if (upload) {
    const bytes = Buffer.from(await upload.arrayBuffer());
    const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
    server.fileCount++;
    const stored = {
      file_id: `${field}-${server.fileCount}-${sha256.slice(0, 16)}`,
      file_unique_id: sha256.slice(0, 16),
      file_name: upload.name || field,
      mime_type: mimeType(bytes, upload.type),
      file_size: bytes.length,
      sha256,
      botToken: token,
      bytes,
    };
    stored.file_path = `${field}s/${stored.file_id}`;
    server.files.set(stored.file_id, stored);
    return stored;
  }
  const known = typeof value === 'string' ? server.files.get(value) : undefined;
  if (known && known.botToken === token) {
    return known;
  }
  throw badRequest('wrong file identifier/HTTP URL specified');
}

function fileRecord(stored) {
  const { bytes, botToken, file_path: path, ...record } = stored;
  return record;
}

function mediaMethod(field, describe) {
  return botMethod(`send${field[0].toUpperCase()}${field.slice(1)}`, async (server, token, params, files) => {
    requireChatId(params);
    const stored = await inputFile(server, token, params, files, field);
    const media = describe(stored);
    const { [field]: _sent, ...rest } = params;
    const result = server.addBotMessage({ ...rest, [field]: media }, token);
    const entry = server.storage.botMessages[server.storage.botMessages.length - 1];
    entry.files = [fileRecord(stored)];
    return result;
  });
}

const sendPhoto = mediaMethod('photo', (stored) => {
  const size = imageSize(stored.bytes);
  if (!size) {
    throw badRequest('IMAGE_PROCESS_FAILED');
  }
  return [{
    file_id: stored.file_id,
    file_unique_id: stored.file_unique_id,
    file_size: stored.file_size,
    width: size.width,
    height: size.height,
  }];
});

const sendDocument = mediaMethod('document', (stored) => ({
  file_id: stored.file_id,
  file_unique_id: stored.file_unique_id,
  file_name: stored.file_name,
  mime_type: stored.mime_type,
  file_size: stored.file_size,
}));

const fileDownload = (app, server) => {
  app.get('/file/bot:token/*', (req, res) => {
    const stored = [...server.files.values()].find((file) => (
      file.botToken === req.params.token && file.file_path === req.params[0]
    ));
    if (!stored) {
      res.status(404).json({ ok: false, error_code: 404, description: 'Not Found' });
      return;
    }
    res.type(stored.mime_type).send(stored.bytes);
  });
};

// ---------------------------------------------------------------- the other methods

function findUserCallback(server, token, callbackQueryId) {
  return server.storage.userMessages.find((update) => (
    update.botToken === token && String(update.callbackId) === String(callbackQueryId)
  ));
}

function findAnyEntry(server, token, chatId, messageId) {
  return findBotEntry(server, token, chatId, messageId)
    || server.storage.userMessages.find((update) => (
      update.botToken === token
      && update.message
      && Number(update.message.chat.id) === Number(chatId)
      && update.messageId === Number(messageId)
    ));
}

function setPinned(pinned) {
  return (server, token, params) => {
    const chatId = requireChatId(params);
    if (params.message_id === undefined && !pinned) {
      return true;
    }
    const entry = findAnyEntry(server, token, chatId, params.message_id);
    if (!entry) {
      throw badRequest('message to pin not found');
    }
    entry.pinned = pinned;
    return true;
  };
}

function dropPending(server, token, params) {
  if (String(params.drop_pending_updates) === 'true') {
    pendingUpdates(server, token).forEach((update) => {
      update.isRead = true;
    });
  }
}

// Methods whose effect nobody reads back in the tests: accepted, answered `true`.
const ACKNOWLEDGED_METHODS = [
  'setMyCommands', 'deleteMyCommands', 'setMyDescription', 'setMyShortDescription', 'setMyName',
  'setChatMenuButton', 'setMyDefaultAdministratorRights', 'sendChatAction', 'unpinAllChatMessages',
  'setMessageReaction', 'close', 'logOut',
];

const botRoutes = [
  countAndParse,
  botMethod('getMe', (_server, token) => ({
    ...botUser(token),
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
  })),
  botMethod('getUpdates', getUpdates),
  botMethod('sendMessage', (server, token, params) => {
    requireChatId(params);
    if (typeof params.text !== 'string' || params.text === '') {
      throw badRequest('message text is empty');
    }
    return server.addBotMessage({ ...params }, token);
  }),
  sendPhoto,
  sendDocument,
  botMethod('editMessageText', (server, token, params) => {
    const entry = editableEntry(server, token, params);
    if (entry.message.text === undefined) {
      throw badRequest('there is no text in the message to edit');
    }
    if (typeof params.text !== 'string' || params.text === '') {
      throw badRequest('message text is empty');
    }
    return applyEdit(server, entry, {
      text: params.text,
      entities: parseJsonField(params.entities, 'entities'),
      parse_mode: params.parse_mode,
      reply_markup: editedMarkup(params),
    });
  }),
  botMethod('editMessageCaption', (server, token, params) => {
    const entry = editableEntry(server, token, params);
    return applyEdit(server, entry, {
      caption: params.caption,
      caption_entities: parseJsonField(params.caption_entities, 'caption_entities'),
      reply_markup: editedMarkup(params),
    });
  }),
  botMethod('editMessageReplyMarkup', (server, token, params) => {
    const entry = editableEntry(server, token, params);
    return applyEdit(server, entry, { reply_markup: editedMarkup(params) });
  }),
  botMethod('answerCallbackQuery', (server, token, params) => {
    const update = findUserCallback(server, token, params.callback_query_id);
    if (!update || update.answer) {
      throw badRequest('query is too old and response timeout expired or query ID is invalid');
    }
    update.answer = {
      text: params.text,
      show_alert: String(params.show_alert) === 'true',
      url: params.url,
    };
    return true;
  }),
  botMethod('deleteMessage', (server, token, params) => {
    const chatId = requireChatId(params);
    if (!findAnyEntry(server, token, chatId, params.message_id)) {
      throw badRequest('message to delete not found');
    }
    server.deleteMessage(chatId, Number(params.message_id));
    return true;
  }),
  botMethod('pinChatMessage', setPinned(true)),
  botMethod('unpinChatMessage', setPinned(false)),
  botMethod('setWebhook', (server, token, params) => {
    if (!params.url) {
      // Telegram: setWebhook with an empty url removes the webhook.
      delete server.webhooks[token];
      return true;
    }
    dropPending(server, token, params);
    server.setWebhook({
      url: params.url,
      secret_token: params.secret_token,
      allowed_updates: parseAllowedUpdates(params.allowed_updates),
    }, token);
    return true;
  }),
  botMethod('deleteWebhook', (server, token, params) => {
    dropPending(server, token, params);
    server.deleteWebhook(token);
    return true;
  }),
  botMethod('getWebhookInfo', (server, token) => {
    const webhook = server.webhooks[token];
    return {
      url: webhook ? webhook.url : '',
      has_custom_certificate: false,
      pending_update_count: pendingUpdates(server, token).length,
    };
  }),
  botMethod('getMyCommands', () => []),
  botMethod('getFile', (server, token, params) => {
    const stored = server.files.get(params.file_id);
    if (!stored || stored.botToken !== token) {
      throw badRequest('invalid file_id');
    }
    return { ...fileRecord(stored), file_path: stored.file_path };
  }),
  ...ACKNOWLEDGED_METHODS.map((name) => botMethod(name, () => true)),
  botMethod(':method', (_server, _token, _params, _files, res) => {
    throw new ApiError(404, `Not Found: method ${res.req.params.method} is not emulated`);
  }),
];

// ---------------------------------------------------------------- start

async function main() {
  const port = Number(process.argv[2] ?? process.env.BOT_API_EMULATOR_PORT ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`bad port: ${process.argv[2] ?? process.env.BOT_API_EMULATOR_PORT}`);
  }
  routes.unshift(...botRoutes, ...clientRoutes, fileDownload);
  const server = new TelegramServer({ port, host: HOST, storeTimeout: STORE_TIMEOUT_SECONDS });
  server.knownChats = new Map();
  server.requestCounts = new Map();
  server.allowedUpdates = new Map();
  server.files = new Map();
  server.deliveries = new Map();
  server.fileCount = 0;
  server.setMaxListeners(0);
  server.config.port = port; // the package turns 0 into 9000; 0 means any free port here
  await server.start();
  const bound = server.server.address().port;
  server.config.port = bound;
  server.config.apiURL = `http://${HOST}:${bound}`;
  process.stdout.write(`READY ${bound}\n`);
}

process.on('unhandledRejection', (reason) => {
  console.error('emulator: unhandled rejection (kept running):', reason);
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();

main().catch((error) => {
  console.error('emulator: could not start:', error);
  process.exit(1);
});
