/* The item editor in the browser (admin/writing.py): Gutenberg's block editor takes the content
   textarea and writes its block markup back into it, so the form posts what the API stores. This
   file gives the editor the site's media route for uploads, autosaves through the autosaves route,
   keeps the post lock and warns before leaving unsaved changes. Without JavaScript, or without the
   editor installed, the textarea stays the editor and the form works as it is. */
(function () {
  'use strict';

  var node = document.getElementById('block-editor-settings');
  var form = document.getElementById('post');
  var textarea = document.getElementById('content');
  if (!node || !form || !textarea || !window.wp || typeof window.wp.attachEditor !== 'function') {
    return;
  }
  var config = JSON.parse(node.textContent);
  var status = document.getElementById('autosave-status');

  function say(text) {
    if (status) {
      status.textContent = text;
    }
  }

  function rest(path, options) {
    options = options || {};
    options.headers = Object.assign({ 'X-WP-Nonce': config.nonce, Accept: 'application/json' }, options.headers || {});
    options.credentials = 'same-origin';
    return plainFetch(config.root + path, options).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (!response.ok) {
          var error = new Error(body.message || response.statusText);
          error.code = body.code || 'GENERAL';
          throw error;
        }
        return body;
      });
    });
  }

  function raw(field) {
    return field && typeof field === 'object' ? (field.raw !== undefined ? field.raw : field.rendered || '') : field || '';
  }

  /* What Gutenberg's image, gallery, audio, video and file blocks take from an uploaded file. */
  function asMedia(item) {
    var sizes = {};
    var details = (item.media_details && item.media_details.sizes) || {};
    Object.keys(details).forEach(function (name) {
      sizes[name] = { url: details[name].source_url, width: details[name].width, height: details[name].height };
    });
    return {
      id: item.id, url: item.source_url, link: item.link, alt: item.alt_text || '', title: raw(item.title),
      caption: raw(item.caption), mime: item.mime_type, type: item.media_type === 'image' ? 'image' : (item.mime_type || '').split('/')[0],
      sizes: sizes, media_details: item.media_details || {}
    };
  }

  function accepts(types, file) {
    if (!types || !types.length) {
      return true;
    }
    return types.some(function (type) {
      return type.indexOf('/') > -1 ? file.type === type : (file.type || '').indexOf(type + '/') === 0;
    });
  }

  /* Offer an uploaded image as the featured image too (the side panel's select). */
  function offerAsFeatured(media) {
    var select = document.getElementById('_thumbnail_id');
    if (!select || media.type !== 'image' || select.querySelector('option[value="' + media.id + '"]')) {
      return;
    }
    var option = document.createElement('option');
    option.value = String(media.id);
    option.textContent = media.title || ('#' + media.id);
    select.appendChild(option);
    if (select.tomselect) {
      select.tomselect.sync();
    }
  }

  /* Gutenberg's mediaUpload setting: each file to POST /cms/v2/media with the REST nonce, as the
     reference's editor does; onFileChange hears every finished file, onError every refusal. */
  function mediaUpload(args) {
    var files = Array.prototype.slice.call(args.filesList || []);
    var finished = [];
    files.forEach(function (file, index) {
      if (!accepts(args.allowedTypes, file)) {
        if (args.onError) {
          args.onError({ code: 'MIME_TYPE_NOT_SUPPORTED', message: 'Sorry, this file type is not supported here.', file: file });
        }
        return;
      }
      var body = new FormData();
      body.append('file', file, file.name);
      if (config.postId) {
        body.append('post', String(config.postId));
      }
      rest('cms/v2/media', { method: 'POST', body: body }).then(function (item) {
        var media = asMedia(item);
        finished[index] = media;
        offerAsFeatured(media);
        args.onFileChange(finished.filter(Boolean));
      }).catch(function (error) {
        if (args.onError) {
          args.onError({ code: error.code, message: error.message, file: file });
        }
      });
    });
  }

  /* Gutenberg asks the reference's REST paths (``/wp/v2/media/7``, ``/oembed/1.0/proxy``) at the
     site's root without a nonce; send them to this site's names, with the user's nonce. */
  var REST_PATHS = [['/wp/v2/', 'cms/v2/'], ['/oembed/1.0/', 'oembed/1.0/']];
  var plainFetch = window.fetch.bind(window);
  /* The active theme's supports, which Gutenberg reads for embeds and wide alignments: this site
     has no themes route; its pages take responsive embeds and wide and full alignments. */
  var THEME = [{ stylesheet: 'calpress', template: 'calpress', status: 'active',
    theme_supports: { 'responsive-embeds': true, 'align-wide': true, 'editor-styles': false } }];
  window.fetch = function (resource, init) {
    if (typeof resource === 'string') {
      var path = resource.indexOf(location.origin) === 0 ? resource.slice(location.origin.length) : resource;
      if (path.indexOf('/wp/v2/themes?') === 0) {
        return Promise.resolve(new Response(JSON.stringify(THEME), { headers: { 'Content-Type': 'application/json' } }));
      }
      for (var i = 0; i < REST_PATHS.length; i += 1) {
        if (path.indexOf(REST_PATHS[i][0]) === 0) {
          init = Object.assign({}, init || {});
          init.headers = Object.assign({ 'X-WP-Nonce': config.nonce }, init.headers || {});
          init.credentials = 'same-origin';
          return plainFetch(config.root + REST_PATHS[i][1] + path.slice(REST_PATHS[i][0].length), init);
        }
      }
    }
    return plainFetch(resource, init);
  };

  /* -- unsaved changes -------------------------------------------------------------------- */

  var title = document.getElementById('title');
  var excerpt = document.getElementById('excerpt');
  var submitting = false;
  var touched = false;  /* until the user types, clicks, pastes or drops, a write is the editor's own */

  function state() {
    return new URLSearchParams(new FormData(form)).toString();
  }

  var saved = state();
  ['keydown', 'mousedown', 'paste', 'drop', 'touchstart'].forEach(function (type) {
    document.addEventListener(type, function () { touched = true; }, true);
  });
  /* The editor writes the textarea's value (a script's write fires no event): its first
     serialisation of what it loaded, before the user does anything, is no change. */
  var own = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value');
  Object.defineProperty(textarea, 'value', {
    configurable: true,
    get: function () { return own.get.call(this); },
    set: function (value) {
      own.set.call(this, value);
      if (!touched) {
        saved = state();
      }
    }
  });

  window.wp.attachEditor(textarea, {
    iso: {
      moreMenu: false,
      toolbar: { inspector: true, navigation: true, undo: true, inserter: true },
      sidebar: { inspector: true, inserter: false },
      defaultPreferences: { fixedToolbar: true }
    },
    editor: {
      mediaUpload: config.canUpload ? mediaUpload : undefined,
      hasUploadPermissions: !!config.canUpload,
      allowedMimeTypes: config.allowedMimeTypes,
      bodyPlaceholder: 'Type / to choose a block',
      hasFixedToolbar: true
    }
  });

  form.addEventListener('submit', function () { submitting = true; });
  window.addEventListener('beforeunload', function (event) {
    if (!submitting && state() !== saved) {
      event.preventDefault();
      event.returnValue = '';
    }
  });

  /* -- autosave ------------------------------------------------------------------------------ */

  /* An existing item autosaves through its autosaves route. A new one has nothing to autosave
     into: its first autosave makes it a draft (the form then saves that draft, not a second
     item), and the page goes on as the draft's editor. */
  var autosaving = config.autosave || config.draft;
  if (autosaving) {
    var autosaved = null;
    var busy = false;
    window.setInterval(function () {
      if (submitting || busy) {
        return;
      }
      var now = [title ? title.value : '', textarea.value, excerpt ? excerpt.value : ''];
      var key = JSON.stringify(now);
      if (key === autosaved || state() === saved || !(now[0] || now[1] || now[2])) {
        return;
      }
      var body = { title: now[0], content: now[1], excerpt: now[2] };
      var route = config.autosave ? config.autosave.route : config.draft.route;
      if (!config.autosave) {
        body.status = 'draft';
      }
      busy = true;
      say('Autosaving…');
      rest(route, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
        .then(function (item) {
          autosaved = key;
          if (!config.autosave) {
            config.postId = item.id;
            document.getElementById('post_ID').value = String(item.id);
            config.autosave = { route: config.draft.autosaves.replace('{id}', item.id), interval: config.draft.interval };
            window.history.replaceState(null, '', config.draft.editor.replace('{id}', item.id));
            saved = state();
          }
          say('Autosave at ' + new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) + '.');
        })
        .catch(function (error) { say('Autosave failed: ' + error.message); })
        .then(function () { busy = false; });
    }, autosaving.interval * 1000);
  }

  /* -- the post lock ------------------------------------------------------------------------- */

  if (config.lock) {
    window.setInterval(function () {
      var body = new FormData();
      body.append('action', 'refresh-lock');
      body.append('post_ID', String(config.postId));
      body.append('_wpnonce', config.lock.nonce);
      fetch(config.lock.url, { method: 'POST', body: body, credentials: 'same-origin', headers: { Accept: 'application/json' } })
        .then(function (response) { return response.json(); })
        .then(function (answer) {
          var notice = document.getElementById('lock-lost');
          if (answer.locked && notice) {
            notice.querySelector('p').textContent = answer.message;
            notice.hidden = false;
            notice.focus();
          }
        })
        .catch(function () { /* the next beat tries again */ });
    }, config.lock.interval * 1000);
  }
})();
