"""Russian for the extension's interface and reports, through Blender's translation system.

``UI`` holds every label, tooltip and enum item of the registered classes; ``REPORTS`` holds the
reports as ``str.format`` templates (English -> Russian, same fields). A report is made in English
by the import and export (and by ``core``, which has no ``bpy``); ``report_text`` finds the template
it was made from, asks Blender for the template's translation (``pgettext_rpt``, so it follows the
interface language and *Translate Reports*) and puts the variable parts (names, numbers, file names)
back in. A report no template matches keeps its English words; its severity still translates.
"""

from __future__ import annotations

import re
from functools import cache

import bpy

LANGUAGE = "ru_RU"
# Blender looks up operator labels in the "Operator" context and everything else in the default one.
CONTEXTS = ("*", "Operator")

UI = {
    # menus, operators, file handler
    "Parkan MSH (.msh, .rlb)": "Parkan MSH (.msh, .rlb)",
    "Parkan MSH": "Parkan MSH",
    "Import Parkan MSH": "Импорт Parkan MSH",
    "Export Parkan MSH": "Экспорт Parkan MSH",
    "Import Parkan: Iron Strategy models (.msh, or every model of an .rlb archive) with their animation":
        "Импорт моделей «Паркан: Железная стратегия» (.msh или все модели архива .rlb) с их анимацией",
    "Export the selected Parkan model (or the scene's only one) as .msh, or into an .rlb archive":
        "Экспорт выбранной модели «Паркана» (или единственной в сцене) в .msh или в архив .rlb",
    # Blender's own import/export helper properties, shown in our dialogs
    "File Path": "Путь к файлу",
    "Filepath used for importing the file": "Путь к импортируемому файлу",
    "Filepath used for exporting the file": "Путь к экспортируемому файлу",
    "Forward": "Вперёд",
    "Up": "Вверх",
    **{f"{sign}{axis} Forward": f"{sign}{axis} вперёд" for sign in ("", "-") for axis in "XYZ"},
    **{f"{sign}{axis} Up": f"{sign}{axis} вверх" for sign in ("", "-") for axis in "XYZ"},
    # import
    "Nodes": "Узлы",
    "Armature": "Арматура",
    "One armature per model, a bone per node": "Одна арматура на модель, по кости на узел",
    "Empties": "Пустышки",
    "An Empty per node, parented as the nodes are": "По пустышке (Empty) на узел, с той же иерархией, что у узлов",
    "Animation": "Анимация",
    "Faithful": "Точная",
    "At every integer frame, exactly the pose the game computes": "В каждом целом кадре — ровно та поза, "
                                                                  "которую вычисляет игра",
    "For Editing": "Для правки",
    "The game's pose at every integer frame within the export's tolerance (0.1 mm, 0.05 degree): few keys, "
    "easy to edit": "Поза игры в каждом целом кадре в пределах допуска экспорта (0,1 мм, 0,05 градуса): мало "
                    "ключей, легко править",
    "Keys": "Ключи",
    "One keyframe per MSH key, for editing sparse tracks": "Один ключевой кадр на ключ MSH, для правки редких "
                                                           "дорожек",
    "None": "Нет",
    "No animation: the rest pose": "Без анимации: поза покоя",
    "Geometry": "Геометрия",
    "Stage and LOD": "Стадия и LOD",
    "The geometry of the chosen damage stage and LOD": "Геометрия выбранной стадии повреждения и LOD",
    "All Slots": "Все слоты",
    "Every stage and LOD: the chosen one visible, each other one in its own hidden collection":
        "Все стадии и LOD: выбранный виден, каждый другой — в своей скрытой коллекции",
    "Damage Stage": "Стадия повреждения",
    "0: intact; 1 and 2: damaged, with pieces gone": "0: целая; 1 и 2: повреждённая, части отсутствуют",
    "LOD": "LOD",
    **{f"LOD {i}": f"LOD {i}" for i in range(4)},
    "Distance level 0 (the closest)": "Уровень дальности 0 (ближайший)",
    **{f"Distance level {i}": f"Уровень дальности {i}" for i in range(1, 4)},
    "First-Person": "Вид из кабины",
    "The cockpit shell seen from inside": "Оболочка кабины, видимая изнутри",
    "Game Folder": "Папка игры",
    "Where Material.lib, Textures.lib and LightMap.lib are, if not beside the file or in its parent folders "
    "(empty: the folder set in the extension's preferences)":
        "Где лежат Material.lib, Textures.lib и LightMap.lib, если их нет рядом с файлом или в родительских "
        "папках (пусто: папка из настроек расширения)",
    "Models": "Модели",
    "For archives: which models to import, as wildcard patterns separated by commas (empty: all of them)":
        "Для архивов: какие модели импортировать, шаблоны со звёздочкой через запятую (пусто: все)",
    "Set Frame Range": "Задать диапазон кадров",
    "Set the scene's frame range to the animation's 0 .. frame_count - 1, and go to frame 0":
        "Задать диапазон кадров сцены по анимации, 0 .. frame_count - 1, и перейти на кадр 0",
    "Scale": "Масштаб",
    # export
    "Reduced": "Сокращённые",
    "The fewest keys that reproduce every frame within the tolerance":
        "Наименьшее число ключей, воспроизводящих каждый кадр в пределах допуска",
    "Every Frame": "Каждый кадр",
    "One key per frame of the scene's range": "Один ключ на каждый кадр диапазона сцены",
    "Blender Keyframes": "Ключевые кадры Blender",
    "Keys exactly at the Blender keyframes (integer frames)": "Ключи ровно в ключевых кадрах Blender (целые "
                                                              "кадры)",
    "Position Tolerance": "Допуск положения",
    "Largest position error of reduced keys (metres)": "Наибольшая ошибка положения у сокращённых ключей (метры)",
    "Rotation Tolerance": "Допуск поворота",
    "Largest rotation error of reduced keys (degrees)": "Наибольшая ошибка поворота у сокращённых ключей "
                                                        "(градусы)",
    "Frame Range": "Диапазон кадров",
    "Which frames are exported. They always start at frame 0, the game's time 0 (Blender frame f is MSH time f)":
        "Какие кадры экспортируются. Они всегда начинаются с кадра 0 — времени 0 игры (кадр f в Blender — "
        "время f в MSH)",
    "Action": "Действие",
    "Up to the end of the model's action (its manual frame range, which an import sets, else its last keyframe)":
        "До конца действия (Action) модели (его ручного диапазона кадров, который задаёт импорт, иначе до "
        "последнего ключевого кадра)",
    "Scene": "Сцена",
    "Up to the scene's end frame": "До конечного кадра сцены",
    "Custom": "Свой",
    "Up to the End Frame below": "До указанного ниже конечного кадра",
    "End Frame": "Конечный кадр",
    "Last exported frame (Custom range), at most Blender's last frame 1,048,574":
        "Последний экспортируемый кадр (для своего диапазона), не больше последнего кадра Blender, 1 048 574",
    "Archive Entry": "Запись архива",
    "For .rlb targets: the model entry to replace or add (default: the model's name)":
        "Для .rlb: запись модели, которую заменить или добавить (по умолчанию — имя модели)",
    "Material Library": "Библиотека материалов",
    "Material.lib to add the materials made in Blender to (empty: none; the game then draws them with DEFAULT)":
        "Material.lib, куда добавить созданные в Blender материалы (пусто: никуда; игра тогда рисует их "
        "материалом DEFAULT)",
    "Texture Library": "Библиотека текстур",
    "Textures.lib to add the new materials' images to (empty: none)":
        "Textures.lib, куда добавить изображения новых материалов (пусто: никуда)",
    "Replace Read-Only Files": "Заменять файлы только для чтения",
    "Write over a target (or library) whose file is read-only":
        "Записывать поверх файла (или библиотеки), доступного только для чтения",
    "Texture Format": "Формат текстур",
    "8888": "8888",
    "32-bit colour with alpha": "32-битный цвет с альфа-каналом",
    "565": "565",
    "16-bit colour, no alpha": "16-битный цвет без альфа-канала",
    "New Materials": "Новые материалы",
    # preferences
    "Folder holding Material.lib, Textures.lib and LightMap.lib, searched after the model's own folder and its "
    "parents": "Папка с Material.lib, Textures.lib и LightMap.lib; ищется после папки модели и её родительских",
    # dialogs' panels, the Parkan panel, clips and units
    'Actions':
        'Действия',
    'An action per clip, each also on a muted NLA track of its own':
        'По действию на клип, каждое также на отдельной приглушённой дорожке NLA',
    'An action per clip, kept in the file; the timeline stays assigned':
        'По действию на клип, действия хранятся в файле; назначенной остаётся вся шкала времени',
    "As the game draws it: node 0's translation cleared":
        'Как рисует игра: перемещение узла 0 обнулено',
    "Blender frames per second of game time: the controller's steps and the materials' animation":
        'Кадров Blender на секунду игрового времени: шаги контроллера и анимация материалов',
    ("Check what an export of the selected model would refuse or change (with the export dialog's last "
     'options); nothing is written'):
        ('Проверить, что экспорт выбранной модели отклонил бы или изменил (с последними настройками диалога '
         'экспорта); ничего не записывается'),
    'Clip':
        'Клип',
    'Clips':
        'Клипы',
    'Distance level 0':
        'Дальность 0',
    'Every stage and LOD, each other one in its own hidden collection':
        'Все стадии и LOD, каждый другой — в своей скрытой коллекции',
    ('Export a Parkan unit: every changed part into its archive, and the .dat tree (a part moved to another '
     'socket of its parent gets its new attach)'):
        ('Экспорт юнита «Паркана»: каждая изменённая часть — в её архив, и дерево .dat (часть, перенесённая на '
         'другое гнездо родителя, получает новый attach)'),
    ('For archives: which models to import, as wildcard patterns separated by commas ('
     "empty: all of them). The dialog's list of models, when shown, decides instead"):
        ('Для архивов: какие модели импортировать, шаблоны через запятую (пусто — все). Ес'
         'ли в диалоге показан список моделей, решает он'),
    'Frame Rate':
        'Частота кадров',
    'How new textures are stored in the texture library':
        'Как новые текстуры хранятся в библиотеке текстур',
    'How the clips move the body (with Clips)':
        'Как клипы двигают корпус (если «Клипы» включены)',
    "How the nodes' animation is keyed":
        'Как ключуется анимация узлов',
    'Import':
        'Импорт',
    ('Import a Parkan: Iron Strategy unit (.dat): its parts, each mounted at its socket, with control points '
     'and damage values'):
        ('Импорт юнита «Паркан: Железная стратегия» (.dat): его части, каждая на своём гнезде, с контрольными '
         'точками и значениями повреждений'),
    'Import this model of the archive':
        'Импортировать эту модель архива',
    'In Place':
        'На месте',
    'Largest position error of reduced keys':
        'Наибольшая ошибка положения сокращённых ключей',
    'Largest rotation error of reduced keys':
        'Наибольшая ошибка поворота сокращённых ключей',
    'Model':
        'Модель',
    'Moving':
        'В движении',
    'NLA Strips':
        'Полосы NLA',
    'Name':
        'Имя',
    'One armature per part, a bone per node':
        'Одна арматура на часть, по кости на узел',
    'One keyframe per MSH key':
        'Один ключевой кадр на ключ MSH',
    "Only the model's whole timeline":
        'Только вся шкала времени модели',
    'Parkan Model':
        'Модель «Паркана»',
    'Parkan Unit':
        'Юнит «Паркана»',
    'Root Motion':
        'Движение корня',
    "Scale of the model's root (1: one MSH unit is one metre)":
        'Масштаб корня модели (1: одна единица MSH — один метр)',
    "Select the object, bone or material's objects this line names":
        'Выделить объект, кость или объекты материала, названные в этой строке',
    'Selected':
        'Выбрано',
    ("Show (or hide) the game's pose of every node at the current frame beside Blender's: an arrow per node "
     "where the game's runtime puts it (the model as the export would write it after a fresh export check, "
     'else as imported)'):
        ('Показать (или скрыть) позу игры для каждого узла в текущем кадре рядом с позой Blender: по стрелке '
         'на узел там, куда его ставит движок игры (модель такой, какой её записал бы экспорт после свежей '
         'проверки, иначе — как импортирована)'),
    'Show this damage stage and LOD of the model, hiding the others':
        'Показать эту стадию повреждения и LOD модели, скрыв остальные',
    'Slot':
        'Слот',
    "The Blender axis the model's forward (MSH +Y) points along":
        'Ось Blender, вдоль которой смотрит перёд модели (MSH +Y)',
    "The Blender axis the model's up (MSH +Z) points along":
        'Ось Blender, вдоль которой смотрит верх модели (MSH +Z)',
    "The body moved by the clip's stride at the clip's speed":
        'Корпус движется на шаг клипа со скоростью клипа',
    "The clip's action name (empty: the clip action assigned to the model)":
        'Имя действия клипа (пусто — действие клипа, назначенное модели)',
    'The damage stage shown (with All Slots: the one visible): 0 intact; 1 and 2 damaged, with pieces gone':
        ('Показанная стадия повреждения (при «Всех слотах» — видимая): 0 — целая; 1 и 2 — '
         'повреждённые, без части деталей'),
    "The game's pose at every integer frame within the export's tolerance":
        'Поза игры в каждом целом кадре в пределах допуска экспорта',
    'The level of detail shown (with All Slots: the one visible)':
        'Показанный уровень детализации (при «Всех слотах» — видимый)',
    'The model root the name belongs to':
        'Корень модели, которому принадлежит имя',
    'The models of the archive shown in the dialog; the ticked ones are imported':
        'Модели архива, показанные в диалоге; отмеченные импортируются',
    'The object, bone or material to select':
        'Объект, кость или материал для выделения',
    'The slot position: damage stage x 5 + LOD':
        'Позиция слота: стадия повреждения × 5 + LOD',
    'Tick (on) or untick (off) every model':
        'Отметить (вкл.) или снять отметку (выкл.) со всех моделей',
    "Tick or untick every model of the archive in the import dialog's list":
        'Отметить или снять отметку со всех моделей архива в списке диалога импорта',
    'Unique name used in the code and scripting':
        'Уникальное имя, используемое в коде и скриптах',
    'What each node of the model becomes in Blender':
        'Чем становится в Blender каждый узел модели',
    "Where Material.lib, Textures.lib and LightMap.lib are, if not found from the unit's folder":
        'Где лежат Material.lib, Textures.lib и LightMap.lib, если их не нашли от папки юнита',
    'Which damage stages and LODs are imported':
        'Какие стадии повреждения и LOD импортируются',
    'Which keys edited nodes get':
        'Какие ключи получают изменённые узлы',
    ('With a controller beside the model (STEM.ctl) or in the archive (CTLD): an actio'
     "n per clip the game plays, named '<model>|<motion> <index>', and a 0..1 slider p"
     'er channel'):
        ('С контроллером рядом с моделью (STEM.ctl) или в архиве (CTLD): по действию на ка'
         "ждый клип игры с именем '<model>|<motion> <index>' и ползунок 0..1 на каждый кан"
         'ал'),
    "Write the keys of the nodes edited in a clip into the model's timeline, at the frames the clip plays":
        'Записать ключи узлов, изменённых в клипе, в шкалу времени модели, в кадры, которые играет клип',
    'models':
        'модели',
    'Check Export':
        'Проверить экспорт',
    'Export Parkan Unit':
        'Экспорт юнита Parkan',
    'Game Pose':
        'Поза игры',
    'Import Parkan Unit':
        'Импорт юнита Parkan',
    'Select':
        'Выделить',
    'Select Models':
        'Выбрать модели',
    'Show Stage and LOD':
        'Показать стадию и LOD',
    'Write Clip to Timeline':
        'Записать клип в шкалу времени',
    'Update Clips':
        'Обновить клипы',
    'Parkan':
        'Паркан',
    "Make the model's clip actions again from its controller states' frames and step lengths as edited (its "
    "msh_state custom properties), to see the new timing before the export writes them":
        'Заново построить действия клипов модели по изменённым кадрам и длинам шагов состояний контроллера '
        '(её свойствам msh_state), чтобы увидеть новый ритм до того, как экспорт их запишет',
    # the Parkan panel's own labels
    'Damage':
        'Повреждение',
    # values the panel and the archive dialog fill in (pgettext_iface, then the numbers and names put back)
    'made in Blender': 'создана в Blender',
    'all': 'все',
    'none': 'нет',
    '(entry {})': '(запись {})',
    '(row {})': '(строка {})',
    '(new)': '(новый)',
    'intact': 'без повреждений',
    'damage {}': 'повреждение {}',
    'first-person': 'от первого лица',
    'Only {} was imported': 'Импортирован только слот «{}»',
    'Models ({} of {})': 'Модели ({} из {})',
    'Select a Parkan model (import one with File > Import > Parkan MSH)':
        'Выберите модель «Паркана» (импортируйте её через Файл > Импорт > Parkan MSH)',
    'Materials:':
        'Материалы:',
    'Damage Stage and LOD':
        'Стадия повреждения и LOD',
    'Export Check':
        'Проверка экспорта',
    'Hide Game Pose':
        'Скрыть позу игры',
    'Show Game Pose':
        'Показать позу игры',
    '(import with Geometry: All Slots to switch)':
        '(для переключения импортируйте с «Геометрия: все слоты»)',
    'FP':
        '1-е лицо',
    'Intact':
        'Целая',
    'Live':
        'Сразу',
    'Not checked yet':
        'Ещё не проверено',
    'The scene changed since: check again':
        'Сцена с тех пор изменилась: проверьте снова',
    'Exports as it is':
        'Экспортируется как есть',
    'File':
        'Файл',
    'Parts':
        'Части',
    'Slots':
        'Слоты',
    'Frames':
        'Кадры',
    'Controller States':
        'Состояния контроллера',
    '0 ms: set by stride/speed':
        '0 мс: задаётся шагом и скоростью',
}

# Reports: English template -> Russian template. Fields are the variable parts, put back after translation.
REPORTS = {
    "error": "ошибка",
    "warning": "предупреждение",
    # the operators
    "No file to import": "Нет файла для импорта",
    "{path}: cannot read: {reason}": "{path}: не удаётся прочитать: {reason}",
    "{path}: cannot write: {reason}": "{path}: не удаётся записать: {reason}",
    "Import failed, nothing was kept: {reason}": "Импорт не удался, ничего не оставлено: {reason}",
    "Imported {count} model(s) with {warnings} warning(s); first: {first}":
        "Импортировано моделей: {count}, предупреждений: {warnings}; первое: {first}",
    "Wrote {path}: {edited} node track(s) rewritten, geometry rebuilt":
        "Записан {path}: переписано дорожек узлов: {edited}, геометрия перестроена",
    "Wrote {path}: {edited} node track(s) rewritten": "Записан {path}: переписано дорожек узлов: {edited}",
    "... and {count} more errors": "... и ещё ошибок: {count}",
    # Write Clip to Timeline
    "Name the clip (or assign a clip's action to the model)":
        "Укажите клип (или назначьте модели действие клипа)",
    "{clip}: {count} edited node(s) written into the timeline":
        "{clip}: изменённых узлов записано в шкалу времени: {count}",
    "{name} has no clip {clip}": "у {name} нет клипа {clip}",
    "the action of clip {clip} was deleted": "действие клипа {clip} удалено",
    "the clip data ({property}) of {name} is unreadable: re-import the model":
        "данные клипов ({property}) у {name} не читаются: импортируйте модель заново",
    "the timeline action of {name} was deleted: nothing was written":
        "действие шкалы времени {name} удалено: ничего не записано",
    "node {node} has no timeline curve for {path}: not written":
        "у узла {node} нет кривой шкалы времени для {path}: не записано",
    "{clip}: the steps of states {states} blend two timeline frames all through; their keys are not written":
        "{clip}: шаги состояний {states} всё время смешивают два кадра шкалы времени; их ключи не записаны",
    "{clip}: the steps of states {states} blend two timeline frames in their first quarter; only the rest of "
    "each is written":
        "{clip}: шаги состояний {states} смешивают два кадра шкалы времени в первой четверти; записан только "
        "остаток каждого",
    "{clip}: node 0's location is root motion and the model was imported before its clip values were recorded; "
    "re-import it to write it":
        "{clip}: положение узла 0 — движение корня, а модель импортирована до того, как стали записываться его "
        "значения в клипах; импортируйте её заново, чтобы записать его",
    "{path}: invalid data": "{path}: неверные данные",
    # the import's warnings and refusals
    "Material.lib, Textures.lib and LightMap.lib were not found next to the file, in its parent folders or in "
    "the game folder: materials are placeholders":
        "Material.lib, Textures.lib и LightMap.lib не найдены ни рядом с файлом, ни в родительских папках, ни в "
        "папке игры: материалы — заглушки",
    "Textures.lib was not found next to the file, in its parent folders or in the game folder: {count} "
    "material(s) that name a texture ({names}) are shown untextured; set the Game Folder":
        "Textures.lib не найден ни рядом с файлом, ни в родительских папках, ни в папке игры: материалы с "
        "текстурой ({count}: {names}) показаны без текстур; укажите папку игры",
    "the frame map is not canonical; KEYS shows the keys, FAITHFUL shows what the game plays":
        "карта кадров не каноническая; режим «Ключи» показывает ключи, «Точная» — то, что играет игра",
    "frame count {count} runs past Blender's last frame {last}; the scene's frame range stops there":
        "число кадров {count} больше последнего кадра Blender {last}; диапазон кадров сцены кончается на нём",
    "the material list is unreadable ({reason}): materials are placeholders":
        "список материалов не читается ({reason}): материалы — заглушки",
    "{what}: choose one of these": "{what}: выберите одно из них",
    "{what}: nothing is visible until you show another slot's collection":
        "{what}: ничего не видно, пока вы не покажете коллекцию другого слота",
    "the model has no geometry for {slot} (Damage Stage {stage}, LOD {lod}); it has {present}":
        "у модели нет геометрии для {slot} (стадия повреждения {stage}, LOD {lod}); есть: {present}",
    "no model matches {pattern}": "ни одна модель не подходит под {pattern}",
    "the archive holds no model": "в архиве нет моделей",
    "entries {indices} are not all models": "не все записи {indices} — модели",
    "{count} indices is not a whole number of triangles; the last {rest} are ignored":
        "{count} индексов — не целое число треугольников; последние {rest} пропущены",
    # core: containers and files
    "bad magic {magic}, expected {expected}": "неверная сигнатура {magic}, ожидалась {expected}",
    "empty file": "пустой файл",
    "truncated header: {size} bytes, an NRes header needs {needed}":
        "обрезанный заголовок: {size} байт, заголовку NRes нужно {needed}",
    "version {version}, expected {expected}": "версия {version}, ожидалась {expected}",
    "total_size {total} does not match the file length {size}":
        "total_size {total} не совпадает с длиной файла {size}",
    "name has no NUL terminator within its 36 bytes": "в 36 байтах имени нет завершающего нуля",
    "payload shares bytes with entry {other}": "данные записи пересекаются с записью {other}",
    "payload offset {offset} is not 8-aligned": "смещение данных {offset} не выровнено на 8",
    "no entry named {name}": "нет записи с именем {name}",
    "no model named {name} in the archive": "в архиве нет модели с именем {name}",
    "entry {name} ({shown}) is not a model": "запись {name} ({shown}) — не модель",
    "archive holds {count} models ({names}); choose one with --entry":
        "в архиве {count} моделей ({names}); выберите одну через --entry",
    # core: model streams (the findings an import reports most)
    "fallback key {key} is out of range ({count} keys)": "резервный ключ {key} вне диапазона (ключей: {count})",
    "fallback key {key} does not follow the previous node's {previous}":
        "резервный ключ {key} не следует за ключом предыдущего узла {previous}",
    "track of node {node} has fractional key times": "у дорожки узла {node} дробные времена ключей",
    "track of node {node} starts at time {time}, not 0": "дорожка узла {node} начинается со времени {time}, не с 0",
    "key times of node {node} do not strictly increase ({first} then {second})":
        "времена ключей узла {node} не строго возрастают ({first}, затем {second})",
    "node {node}: {count} frames hold words above the fallback key {key} (read as fallback; canonical is =)":
        "узел {node}: в кадрах ({count}) слова больше резервного ключа {key} (читаются как резервный; "
        "канонически =)",
    "node without a map has {count} keys; canonical is 1": "у узла без карты ключей: {count}; канонически 1",
    "node with a map has fewer than 2 keys": "у узла с картой меньше 2 ключей",
    "frame count (attr2) is 0; the runtime needs at least 1": "число кадров (attr2) равно 0; игре нужен хотя бы 1",
    "frame count {count} differs from the last key time + 1 ({end})":
        "число кадров {count} отличается от времени последнего ключа + 1 ({end})",
    "required stream ({label}) is missing": "нет обязательного потока ({label})",
    "unknown stream type {type}, kept raw": "неизвестный тип потока {type}, сохранён как есть",
    "parent {parent} is out of range ({count} nodes)": "родитель {parent} вне диапазона (узлов: {count})",
    "parent {parent} does not precede the node": "родитель {parent} не предшествует узлу",
    "node is its own ancestor (parent cycle)": "узел — свой же предок (цикл родителей)",
    "vertex {vertex} (base_vertex {base} + index) is out of range ({count} vertices)":
        "вершина {vertex} (base_vertex {base} + индекс) вне диапазона (вершин: {count})",
    "indices [{start}, {end}) exceed the index count {count}":
        "индексы [{start}, {end}) выходят за число индексов {count}",
    # the export's warnings and refusals
    "mesh {name} is skinned to {count} bones; MSH parts move rigidly with one node, so it is split into one part "
    "per bone: each vertex goes to the bone of its largest weight, each triangle to the bone two of its corners "
    "share, else to its first corner's":
        "меш {name} привязан к костям ({count}); части MSH жёстко движутся с одним узлом, поэтому он разбит на "
        "части по костям: каждая вершина уходит к кости с наибольшим весом, каждый треугольник — к кости, общей "
        "для двух его углов, иначе к кости его первого угла",
    "mesh {name} is not attached to a node: parent it to a bone or weight it to bones (MSH parts move rigidly "
    "with one node){rest}":
        "меш {name} не прикреплён к узлу: сделайте его дочерним кости или привяжите весами к костям (части MSH "
        "жёстко движутся с одним узлом){rest}",
    "mesh {name} is not attached to a node: parent it to one of the model's Empties":
        "меш {name} не прикреплён к узлу: сделайте его дочерним одной из пустышек модели",
    "mesh {name} has polygons that cannot be triangulated": "у меша {name} есть полигоны, которые нельзя "
                                                            "разбить на треугольники",
    "mesh {name}: {count} vertices have no weight on a bone (vertex groups: {groups})":
        "меш {name}: у вершин ({count}) нет веса ни на одной кости (группы вершин: {groups})",
    "the animation is as imported and is written unchanged (frame count {count}); the {range} range 0..{end} is "
    "not applied":
        "анимация не менялась после импорта и записана как есть (кадров: {count}); диапазон {range} 0..{end} "
        "не применён",
    "the target is a model, not an archive": "цель — модель, а не архив",
    "collection {name} holds {count} model roots; it needs one":
        "в коллекции {name} корней моделей: {count}; нужен один",
    "the {range} range ends at frame {end}, before frame 0 (the game's time 0)":
        "диапазон {range} кончается на кадре {end}, раньше кадра 0 (времени 0 игры)",
    "the {range} range ends at frame {end}, after Blender's last frame {last}":
        "диапазон {range} кончается на кадре {end}, после последнего кадра Blender {last}",
    "{count} keyframe(s) lie outside the exported frames 0..{end} and are not exported (frame 0 is the game's "
    "time 0)":
        "ключевые кадры ({count}) лежат вне экспортируемых кадров 0..{end} и не экспортируются (кадр 0 — время "
        "0 игры)",
    "the node structure differs from the imported model: the model is rebuilt from the scene, and the "
    "original's unknown streams and fields are not carried over":
        "структура узлов отличается от импортированной модели: модель строится заново по сцене, и неизвестные "
        "потоки и поля оригинала не переносятся",
    "geometry changed: {slots} rebuilt; every other slot is kept as it was":
        "геометрия изменена: {slots} перестроены; все прочие слоты сохранены как были",
    "node {name} is mirrored (a negative scale); MSH nodes have no scale and a mirrored part would show its faces "
    "inside out: apply or remove the negative scale":
        "узел {name} отражён (отрицательный масштаб); у узлов MSH нет масштаба, и отражённая часть показала бы "
        "грани наизнанку: примените или уберите отрицательный масштаб",
    "node {name} has parts and a scale that changes over the frames; MSH nodes have no scale and parts do not "
    "deform: remove the scale animation":
        "у узла {name} есть части и меняющийся по кадрам масштаб; у узлов MSH нет масштаба, а части не "
        "деформируются: уберите анимацию масштаба",
    "node {name} has a keyframe at frame {frame}, not on an integer frame; export with reduced or per-frame keys "
    "instead":
        "у узла {name} ключевой кадр на кадре {frame}, не на целом кадре; экспортируйте с сокращёнными ключами "
        "или ключом на каждый кадр",
    "mesh {name} has {count} vertices, {split} once split where normals or UVs differ (MSH stores one normal and "
    "UV per vertex); a part holds at most 65536: split the mesh or merge by distance":
        "у меша {name} вершин: {count}, {split} после разделения там, где различаются нормали или UV (MSH хранит "
        "одну нормаль и UV на вершину); часть вмещает не больше 65536: разделите меш или объедините вершины по "
        "расстоянию",
    "mesh {name} has {count} triangles with one material; MSH draws at most 21845 per material and part: split "
    "the mesh or give its faces more materials":
        "у меша {name} треугольников с одним материалом: {count}; MSH рисует не больше 21845 на материал и "
        "часть: разделите меш или дайте его граням больше материалов",
    "mesh {name}: msh_slot {slot} is not 0..14": "меш {name}: msh_slot {slot} вне 0..14",
    # edited controller states (io_msh.exp.state_edits, core.animation.controller.edit)
    "{name}: {count} clip(s) made again from the state values":
        "{name}: клипов построено заново по значениям состояний: {count}",
    "the clips cannot be made again: {why}": "клипы нельзя построить заново: {why}",
    "{field} {values}: not a number": "{field} {values}: не число",
    "{field} {values}: too large for the file's 32-bit float": "{field} {values}: слишком велико для 32-битного "
        "числа файла",
    "step length {value} ms is negative (0 ms: set by stride and speed)":
        "длина шага {value} мс отрицательна (0 мс: задаётся шагом и скоростью)",
    "{field} {values} reach past the model's last frame {last} ({count} frames)":
        "{field} {values} выходят за последний кадр модели {last} (кадров: {count})",
    "{problem}; property {prop} on {root}": "{problem}; свойство {prop} у {root}",
    "{field}: property {prop} on {root} holds {held}, needs {count} number(s)":
        "{field}: свойство {prop} у {root} содержит {held}, а нужно чисел: {count}",
    "the edited controller states ({names}) were not written: {why}":
        "изменённые состояния контроллера ({names}) не записаны: {why}",
    "there is no {name} beside {path} and {why}": "рядом с {path} нет {name}, и {why}",
    "the archive {path} has no CTLD entry for {model} and {why}":
        "в архиве {path} нет записи CTLD для {model}, и {why}",
    "{path}, the controller the model was imported with, is gone":
        "{path}, контроллер, с которым модель была импортирована, исчез",
    "{source} is not the controller the model was imported with ({imported}): the edited state fields were "
    "written into it, the rest of it kept":
        "{source} — не тот контроллер, с которым модель была импортирована ({imported}): изменённые поля "
        "состояний записаны в него, остальное сохранено",
    "meshes {first} and {second} are on the same node and slot {slot}: join them or set msh_slot":
        "меши {first} и {second} на одном узле и в одном слоте {slot}: объедините их или задайте msh_slot",
    "node {handle}: the name {name} cannot be stored in code page 1251; rename it":
        "узел {handle}: имя {name} не записать в кодировке 1251; переименуйте его",
    "node {handle}: the name {name} is {size} bytes; MSH node names hold at most {limit}":
        "узел {handle}: имя {name} занимает {size} байт; имена узлов MSH вмещают не больше {limit}",
    "material {name} would be WEAR row {index}; a batch names at most 256 materials":
        "материал {name} стал бы строкой WEAR {index}; батч называет не больше 256 материалов",
    "new materials {names} are not in Material.lib: the game draws them with DEFAULT unless you export with a "
    "material library":
        "новых материалов {names} нет в Material.lib: игра рисует их материалом DEFAULT, если не экспортировать "
        "с библиотекой материалов",
    "material {name}: its animation's F-curves were edited; MAT0 tracks are not written, so the game plays the "
    "track in Material.lib as before":
        "материал {name}: F-кривые его анимации изменены; дорожки MAT0 не записываются, поэтому игра играет "
        "дорожку из Material.lib, как прежде",
    "image {image} of material {material} is not written: choose a texture library":
        "изображение {image} материала {material} не записано: выберите библиотеку текстур",
    "{problem}: rename the image": "{problem}: переименуйте изображение",
    "several models are selected ({names}); select one": "выбрано несколько моделей ({names}); выберите одну",
    "several models are in the scene; select the model to export":
        "в сцене несколько моделей; выберите модель для экспорта",
    "no model root (an armature or an Empty) is selected; select the model to export":
        "не выбран корень модели (арматура или пустышка); выберите модель для экспорта",
    "{name} has no nodes: add bones or child Empties": "у {name} нет узлов: добавьте кости или дочерние пустышки",
    "node hierarchy has a cycle": "в иерархии узлов есть цикл",
    "it changed on disk after the export read it": "он изменился на диске после того, как экспорт его прочитал",
    "nodes were added, removed or re-parented, so the model must be rebuilt from the scene, but only its {shown} "
    "parts were imported and the other damage stages and LODs would be lost; import it with Geometry: All Slots "
    "and make the change again":
        "узлы добавлены, удалены или переподчинены, поэтому модель надо строить заново по сцене, но импортированы "
        "только её части {shown}, и прочие стадии повреждения и LOD потерялись бы; импортируйте её с «Геометрия: "
        "Все слоты» и повторите изменение",
    "nodes were added, removed or re-parented, so the model must be rebuilt from the scene, and its {lost} cannot "
    "be: Blender does not hold them; keep the imported node structure":
        "узлы добавлены, удалены или переподчинены, поэтому модель надо строить заново по сцене, а её {lost} так "
        "не построить: Blender их не хранит; сохраните импортированную структуру узлов",
    "legacy 24-byte node table: the model is written back unchanged":
        "старая 24-байтная таблица узлов: модель записана обратно без изменений",
    "legacy 24-byte node table: kept as data, nodes and animation not interpreted":
        "старая 24-байтная таблица узлов: сохранена как данные, узлы и анимация не разбираются",
    "the archive has entries that could not be read; it cannot be written back":
        "в архиве есть записи, которые не читаются; записать его обратно нельзя",
    "duplicate stream (entry {index}); the runtime uses the first":
        "повторный поток (запись {index}); игра использует первый",
    "size {size} is not a multiple of the record size {stride}": "размер {size} не кратен размеру записи {stride}",
    "size {size} is not a multiple of the node stride {stride}": "размер {size} не кратен размеру узла {stride}",
    "attr1 {attr} differs from the node count {count}": "attr1 {attr} не совпадает с числом узлов {count}",
    "attr1 {attr} differs from the record count {count}": "attr1 {attr} не совпадает с числом записей {count}",
    "{count} records for {vertices} vertices": "{count} записей на {vertices} вершин",
    "{count} names for {nodes} nodes": "{count} имён на {nodes} узлов",
    "{count} records for {nodes} nodes": "{count} записей на {nodes} узлов",
    "slot index {slot} is out of range ({count} slots)": "индекс слота {slot} вне диапазона (слотов: {count})",
    "empty map with frame count {count}; canonical is 1": "пустая карта при числе кадров {count}; канонически 1",
    "{count} keys after the last track": "ключей после последней дорожки: {count}",
    "map block starts at word {start}; canonical is {expected}":
        "блок карты начинается со слова {start}; канонически {expected}",
    "{count} words; canonical blocks need {expected}": "слов: {count}; каноническим блокам нужно {expected}",
    "{count} words but no node has a map": "слов: {count}, но ни у одного узла нет карты",
    "map start {start} but the model has no Res19": "начало карты {start}, но у модели нет Res19",
    "triangle links {links} out of range ({count} triangles)":
        "связи треугольника {links} вне диапазона (треугольников: {count})",
    "{size} bytes, more than the {limit} a game file can be": "{size} байт, больше {limit}, чем может быть файл игры",
    "the same file as {other}": "тот же файл, что и {other}",
    "the file is read-only (force to replace it)": "файл только для чтения (замените его принудительно)",
    "is a folder; name the file to write": "это папка; укажите файл для записи",
    "not a regular file": "не обычный файл",
    "its folder {folder} is not writable": "в его папку {folder} нельзя писать",
    "No such file or directory (no folder {folder})": "Нет такого файла или каталога (нет папки {folder})",
    # branch unitimp: the import's key count (issue 28, item 9)
    "Animation: Faithful keys the nodes at more than {limit} node-frames, more than an import writes: import "
    "with Animation: Keys or For Editing":
        "Анимация «Точная» ставит ключи узлов более чем в {limit} узло-кадрах, больше, чем пишет импорт: "
        "импортируйте с анимацией «Ключи» или «Для правки»",
    "Animation: For Editing keys the nodes at more than {limit} node-frames, more than an import writes: import "
    "with Animation: Keys":
        "Анимация «Для правки» ставит ключи узлов более чем в {limit} узло-кадрах, больше, чем пишет импорт: "
        "импортируйте с анимацией «Ключи»",
    "Animation: Keys keys the nodes at more than {limit} node-frames, more than an import writes: import with "
    "Animation: None":
        "Анимация «Ключи» ставит ключи узлов более чем в {limit} узло-кадрах, больше, чем пишет импорт: "
        "импортируйте с анимацией «Нет»",
    # branch unitimp: a u32 word kept in a custom property (issue 28, item 4)
    "property {key} on {name} holds {value}, not a 32-bit word":
        "свойство {key} у {name} содержит {value}, а не 32-битное слово",
}

# A field is one value (a name, a number, a path), never a ": "-separated run; these fields hold text.
FIELD, FREE = r"(?:(?!: ).)+?", r".+?"
FREE_FIELDS = {"first", "reason", "what", "rest", "problem", "lost"}
FINDING = re.compile(r"(?P<head>(?:.*?: )?)(?P<severity>error|warning): (?P<message>.*)")


def translations() -> dict[str, dict[tuple[str, str], str]]:
    """The dictionary ``bpy.app.translations.register`` takes: every string in every context Blender uses."""
    table = {(context, english): russian for english, russian in UI.items() for context in CONTEXTS}
    table.update({(context, english): russian for english, russian in REPORTS.items() for context in CONTEXTS})
    return {LANGUAGE: table}


def register() -> None:
    bpy.app.translations.register(__name__, translations())


def unregister() -> None:
    bpy.app.translations.unregister(__name__)


@cache
def _patterns() -> tuple[tuple[re.Pattern, str], ...]:
    """Each report template as a regular expression whose groups are its fields; longest templates first."""
    out = []
    for template in sorted(REPORTS, key=len, reverse=True):
        parts = re.split(r"\{(\w+)\}", template)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>{FREE if p in FREE_FIELDS else FIELD})"
                        for i, p in enumerate(parts))
        out.append((re.compile(regex, re.DOTALL), template))
    return tuple(out)


def _translate(english: str) -> str:
    return bpy.app.translations.pgettext_rpt(english)


def report_text(message: str, depth: int = 0) -> str:
    """One report line in the interface language: a known template's fixed words translated, its variable parts
    kept (and themselves translated where they are reports too); a file name or place before ``: `` kept."""
    if depth > 4:
        return message
    for pattern, template in _patterns():
        match = pattern.fullmatch(message)
        if match:
            values = {k: report_text(v, depth + 1) if " " in v else v for k, v in match.groupdict().items()}
            return _translate(template).format(**values)
    finding = FINDING.fullmatch(message)
    if finding:
        head, severity, text = finding.group("head", "severity", "message")
        return f"{head}{_translate(severity)}: {report_text(text, depth + 1)}"
    head, sep, rest = message.partition(": ")
    if sep and rest:
        return f"{head}{sep}{report_text(rest, depth + 1)}"
    return message


def report(operator, level: str, message: str) -> None:
    """An operator report, one per line, printable (file names may hold bytes that are not UTF-8), in the
    interface language."""
    from ...core.errors import printable

    for line in message.splitlines() or [""]:
        operator.report({level}, report_text(printable(line)))
