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
import string
from functools import cache

import bpy

LANGUAGE = "ru_RU"
# Blender looks up operator labels in the "Operator" context and everything else in the default one.
CONTEXTS = ("*", "Operator")

# One name for one thing: the Russian term each English one gets, following Blender's own Russian dictionary
# (locale/po/ru.po) where Blender has the word, and the variants not to use (tests/test_translation_coverage.py
# fails on a Russian text holding one). The file format keeps its name, "Parkan MSH", as glTF keeps its own.
GLOSSARY = (
    # (English, Russian, variants not used: regular expressions)
    ("Parkan: Iron Strategy (the game)", "«Паркан: Железная стратегия», коротко «Паркан» (модель «Паркана»)",
     (r"Parkan(?! MSH| asset library/)(?<!/Parkan)",)),
    ("Parkan MSH (the format, menu entries)", "Parkan MSH", ()),
    ("unit", "юнит (юнит «Паркана»)", ()),
    ("part (of a unit)", "часть", ()),
    ("socket", "гнездо", (r"сокет",)),
    ("node", "узел", ()),
    ("Armature / bone", "арматура / кость (Blender)", ()),
    ("Empty", "пустышка (Blender)", ()),
    ("keyframe / key", "ключевой кадр (Blender) / ключ (MSH)", (r"ключуе", r"ключевать")),
    ("Timeline", "временная шкала (Blender)", (r"шкал[а-я]* времени",)),
    ("Action", "действие (Blender)", ()),
    ("clip / controller / state / anchor", "клип / контроллер / состояние / опорное состояние", ()),
    ("belt (a material a channel's slider plays)", "гусеница", (r"(?<![а-яё])лент[аыуео]",)),
    ("lamp (a material animated by the clock)", "фара", (r"(?<![а-яё])фонар",)),
    ("Transform (the dialogs' panel)", "трансформация", (r"[Пп]реобразовани",)),
    ("game pose (the pose the game computes)", "игровая поза", (r"\b[Пп]оз[аыуе]й? игры\b",)),
    ("damage stage", "стадия повреждения", ()),
    ("intact", "без повреждений", (r"\b[Цц]елая\b(?! часть)", r"\b[Цц]елые\b(?! кадр| свойств| числ)")),
    ("First-Person (LOD 4)", "от первого лица", (r"[Вв]ид из кабины",)),
    ("LOD", "LOD (уровень детализации)", ()),
    ("batch (of triangles)", "пакет отрисовки", (r"батч",)),
    ("material list (WEAR)", "список материалов", ()),
    ("Material.lib, Textures.lib, LightMap.lib", "as they are (file names)", ()),
    ("export check", "проверка экспорта", ()),
    ("refusal", "отказ", ()),
)

UI = {
    # menus, operators, file handler
    "Parkan MSH (.msh, .rlb)": "Parkan MSH (.msh, .rlb)",
    "Parkan MSH": "Parkan MSH",
    # labels drawn by name (menu entries, the dialogs' panel headers and buttons)
    "Parkan Unit (.dat)": "Юнит «Паркана» (.dat)",
    "Materials": "Материалы",
    "Transform": "Трансформация",
    "Files": "Файлы",
    "All": "Все",
    "What each node of each part becomes in Blender": "Чем становится в Blender каждый узел каждой части",
    "Scale of the unit's root part, which carries the others (1: one MSH unit is one metre)":
        "Масштаб корневой части юнита, которая несёт остальные (1: одна единица MSH — один метр)",
    "Write over the .dat and the parts' archives if their files are read-only":
        "Записывать поверх .dat и архивов частей, даже если их файлы только для чтения",
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
    "easy to edit": "Игровая поза в каждом целом кадре в пределах допуска экспорта (0,1 мм, 0,05 градуса): мало "
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
    "0: intact; 1 and 2: damaged, with pieces gone": "0: без повреждений; 1 и 2: с повреждениями, части отсутствуют",
    "LOD": "LOD",
    **{f"LOD {i}": f"LOD {i}" for i in range(4)},
    "Distance level 0 (the closest)": "Уровень дальности 0 (ближайший)",
    **{f"Distance level {i}": f"Уровень дальности {i}" for i in range(1, 4)},
    "First-Person": "От первого лица",
    "The cockpit shell seen from inside": "Оболочка кабины, видимая изнутри (вид от первого лица)",
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
    "Rotation Tolerance": "Допуск поворота",
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
    "Replace Changed Files": "Заменять изменённые файлы",
    "Write over a file that another program changed after the import (its change is lost)":
        "Записывать поверх файла, изменённого другой программой после импорта (то изменение теряется)",
    "Write over a map or mission file that another program changed since the import (its change is lost); "
    "otherwise the export refuses and writes nothing":
        "Записывать поверх файла карты или миссии, изменённого другой программой после импорта (то изменение "
        "теряется); иначе экспорт отказывается и ничего не пишет",
    "Time of Day": "Время суток",
    "The mission's sky is shown as its keyframe at or before this time (HH:MM); empty: where the mission's clock "
    "starts. Colours, fog and the sun edited in Blender are written into that keyframe by Export Parkan Map":
        "Небо миссии показывается по её ключевому кадру в это время или раньше (ЧЧ:ММ); пусто: там, где "
        "начинаются часы миссии. Цвета, туман и солнце, изменённые в Blender, экспорт карты «Паркана» "
        "записывает в этот ключевой кадр",
    "Replace the Map There": "Заменять карту там",
    "A mission exported into another game tree: write its map there even where that tree holds other map files "
    "(they are replaced); otherwise the export refuses and writes nothing":
        "Миссия экспортируется в другое дерево игры: записывать туда и её карту, даже если там лежат другие файлы "
        "карты (они заменяются); иначе экспорт отказывается и ничего не пишет",
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
        'По действию на клип, действия хранятся в файле; назначенной остаётся вся временная шкала',
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
        'Как задаются ключи анимации узлов',
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
    "Only the model's whole timeline":
        'Только вся временная шкала модели',
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
        ('Показать (или скрыть) игровую позу для каждого узла в текущем кадре рядом с позой Blender: по стрелке '
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
        ('Показанная стадия повреждения (при «Всех слотах» — видимая): 0 — без повреждений; 1 и 2 — '
         'повреждённые, без части деталей'),
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
        'Записать ключи узлов, изменённых в клипе, во временную шкалу модели, в кадры, которые играет клип',
    'models':
        'модели',
    'Check Export':
        'Проверить экспорт',
    'Export Parkan Unit':
        'Экспорт юнита «Паркана»',
    'Game Pose':
        'Игровая поза',
    'Import Parkan Unit':
        'Импорт юнита «Паркана»',
    'Select':
        'Выделить',
    'Select Models':
        'Выбрать модели',
    'Show Stage and LOD':
        'Показать стадию и LOD',
    'Write Clip to Timeline':
        'Записать клип во временную шкалу',
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
        'Скрыть игровую позу',
    'Show Game Pose':
        'Показать игровую позу',
    '(import with Geometry: All Slots to switch)':
        '(для переключения импортируйте с «Геометрия: все слоты»)',
    'FP':
        'От 1-го лица',
    'Intact':
        'Без повреждений',
    'Live':
        'На лету',
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
    # Parkan Map import and export
    "Parkan Map (Land.msh, data.tma)": "Карта «Паркана» (Land.msh, data.tma)",
    "Import Parkan Map": "Импорт карты «Паркана»",
    "Export Parkan Map": "Экспорт карты «Паркана»",
    "Parkan Mission": "Миссия «Паркана»",
    "Import a Parkan: Iron Strategy map (Land.msh) with its materials and water, or a mission (data.tma): its map "
    "and its units, buildings, trees and rocks, one collection per clan":
        "Импорт карты «Паркан: Железная стратегия» (Land.msh) с материалами и водой или миссии (data.tma): её "
        "карты, юнитов, зданий, деревьев и камней, по коллекции на клан",
    "Export an imported Parkan map and mission: the ground's heights into Land.msh (normals and boxes recomputed), "
    "the objects' placements into data.tma, every other file as read":
        "Экспорт импортированной карты и миссии «Паркана»: высоты земли в Land.msh (нормали и габариты "
        "пересчитываются), расстановка объектов в data.tma, остальные файлы как были прочитаны",
    "What each node of each placed unit or model becomes in Blender":
        "Чем в Blender становится каждый узел каждого расставленного юнита или модели",
    "Where Material.lib, Textures.lib and objects.rlb are, if not found from the map's or mission's folder":
        "Где лежат Material.lib, Textures.lib и objects.rlb, если их не найти от папки карты или миссии",
    "Export the map of this collection": "Экспортировать карту этой коллекции",
    "Write over the map's and mission's files if they are read-only":
        "Перезаписывать файлы карты и миссии, даже если они только для чтения",
    # File > Export > Parkan Clips for Engines
    'Export Parkan Clips for Engines':
        'Экспорт клипов «Паркана» для движков',
    'Parkan Clips for Engines (.glb, .fbx)':
        'Клипы «Паркана» для движков (.glb, .fbx)',
    ('Write the scene to .glb or .fbx with every clip of the models imported with Clips as a named animation, '
     "each channel's range and each animated material too"):
        ('Записать сцену в .glb или .fbx, где каждый клип моделей, импортированных с клипами, — именованная '
         'анимация, как и диапазон каждого канала и каждый анимированный материал'),
    'The file written, by Blender\'s own exporter':
        'Записываемый файл, собственным экспортёром Blender',
    'glTF Binary (.glb)':
        'Двоичный glTF (.glb)',
    'Animations, with material animation as KHR_animation_pointer':
        'Анимации, анимация материалов — как KHR_animation_pointer',
    'FBX':
        'FBX',
    'A take per animation; no material animation':
        'По дублю на анимацию; без анимации материалов',
    'Material Animation':
        'Анимация материалов',
    'Format':
        'Формат',
    ("glTF: animated materials as KHR_animation_pointer animations: the emission and the texture cell, which "
     "Blender's own glTF importer reads back"):
        ("glTF: анимированные материалы как анимации KHR_animation_pointer: излучение и ячейка текстуры, которые "
         "собственный импортёр glTF в Blender читает обратно"),
    "Base Colour Animation": "Анимация базового цвета",
    ("glTF, with Material Animation: the animated base colour too, for readers that apply KHR_animation_pointer "
     "to material factors (Babylon.js, Khronos' glTF Sample Viewer); Blender's own glTF importer stops with an "
     "error on it"):
        ("glTF, вместе с анимацией материалов: ещё и анимированный базовый цвет, для программ, которые применяют "
         "KHR_animation_pointer к коэффициентам материалов (Babylon.js, glTF Sample Viewer от Khronos); "
         "собственный импортёр glTF в Blender останавливается на нём с ошибкой"),
    # ---- end of gltfclips' block
    # the asset library (File > Import > Parkan Game as Asset Library)
    "Parkan Game as Asset Library": "Игра «Паркан» как библиотека ассетов",
    "Build Parkan Asset Library": "Собрать библиотеку ассетов «Паркана»",
    "Make a Blender asset library of a game folder: every model and every unit as a collection asset with its "
    "preview, description, tags and catalogue (only what changed is made again)":
        "Собрать библиотеку ассетов Blender из папки игры: каждая модель и каждый юнит становятся ассетом-коллекцией "
        "с превью, описанием, тегами и каталогом (заново делается только изменившееся)",
    "The game folder": "Папка игры",
    "Library": "Библиотека",
    "The library .blend to write (empty: Parkan asset library/Parkan.blend in the game folder)":
        "Файл .blend библиотеки (пусто: Parkan asset library/Parkan.blend в папке игры)",
    "Processes": "Процессы",
    "Blender processes making assets at once": "Сколько процессов Blender одновременно делают ассеты",
    "Preview Size": "Размер превью",
    "Preview pixels": "Размер превью в пикселях",
    "Make Every Asset Again": "Сделать все ассеты заново",
    "Make every asset again, not only those whose sources changed":
        "Сделать заново каждый ассет, а не только те, чьи исходные файлы изменились",
    "Add to Asset Libraries": "Добавить в библиотеки ассетов",
    "Add the library's folder to Preferences > File Paths > Asset Libraries":
        "Добавить папку библиотеки в «Настройки > Пути к файлам > Библиотеки ассетов»",
    # the unit posed as a whole
    "Show Unit Clip": "Показать клип юнита",
    "Show a clip on every part of the unit that has one of that name (the parts mounted on the chassis follow its "
    "sockets); none: every part's timeline again":
        "Показать клип на каждой части юнита, у которой есть клип с этим именем (части, установленные на шасси, "
        "следуют за его гнёздами); без имени: снова временная шкала каждой части",
    "The clip's name (e.g. walk 1); empty: the timeline": "Имя клипа (например, walk 1); пусто: временная шкала",
    "The unit's collection (default: the active object's)":
        "Коллекция юнита (по умолчанию: коллекция активного объекта)",
    "Unit Pose": "Поза юнита",
    "Timeline": "Временная шкала",
    "Clip of every part:": "Клип всех частей:",
    "No part has clips (import the unit with Clips: Actions)":
        "Ни у одной части нет клипов (импортируйте юнит с параметром «Клипы»: «Действия»)",
    # ---- end of unitmotion's block
}

# Reports: English template -> Russian template. Fields are the variable parts, put back after translation.
REPORTS = {
    "error": "ошибка",
    "warning": "предупреждение",
    # RsLi archives (gamefont.rlb, sprites.lib) and fonts (Tfnt, PAL.PAL)
    "not an RsLi archive (replace edits gamefont.rlb, sprites.lib and the like)":
        "это не архив RsLi (replace правит gamefont.rlb, sprites.lib и подобные)",
    "{method} ({flags}) is used by no shipped archive and is not written; give --method lzss or --method deflate":
        "{method} ({flags}) не использует ни один архив игры, и он не записывается; укажите --method lzss или "
        "--method deflate",
    "{path}: font, cell {width} x {height} (+1), pen extra {extra}, {count} drawn glyphs, atlas {w}x{h} format "
    "{format} (PAL.PAL's colours)":
        "{path}: шрифт, ячейка {width} x {height} (+1), добавочный шаг {extra}, нарисованных глифов: {count}, атлас "
        "{w}x{h}, формат {format} (цвета PAL.PAL)",
    "{path}: font, cell {width} x {height} (+1), pen extra {extra}, {count} drawn glyphs, atlas {w}x{h} format "
    "{format}":
        "{path}: шрифт, ячейка {width} x {height} (+1), добавочный шаг {extra}, нарисованных глифов: {count}, атлас "
        "{w}x{h}, формат {format}",
    "{path}: wrote {name} ({size} bytes, unpacked from {method}) to {output}":
        "{path}: {name} ({size:байт|байта|байт}, распаковано из {method}) записано в {output}",
    "{path}: palette, {count} colours, tag {tag}, blend table 256 x 256":
        "{path}: палитра, цветов: {count}, метка {tag}, таблица смешения 256 x 256",
    "no member named {name} (#N picks member N)": "нет элемента с именем {name} (#N выбирает элемент N)",
    "{size} bytes; a palette is {expected}": "{size:байт|байта|байт}; в палитре {expected}",
    "a palette holds 256 x 4 colour bytes, a 4-byte tag and a 256 x 256 table, not {colours}, {tag}, {table}":
        "палитра — это 256 x 4 байта цветов, 4-байтовая метка и таблица 256 x 256, а не {colours}, {tag}, {table}",
    "does not unpack": "не распаковывается",
    "{name} is neither a texture (Texm) nor a font (Tfnt)": "{name} — ни текстура (Texm), ни шрифт (Tfnt)",
    "{size} bytes; a font's header, {count} glyph records and its atlas's header need {need}":
        "{size:байт|байта|байт}; заголовку шрифта, {count} записям глифов и заголовку атласа нужно {need}",
    "the atlas is not a Texm": "атлас — не Texm",
    "atlas format {format} holds colours, not palette indices":
        "атлас формата {format} хранит цвета, а не индексы палитры",
    "the {width}x{height} atlas needs more bytes than the font has":
        "атласу {width}x{height} нужно больше байт, чем есть в шрифте",
    "the atlas (format 2) draws with PAL.PAL's colours; no PAL.PAL was found beside it":
        "атлас (формат 2) рисуется цветами PAL.PAL; рядом с ним PAL.PAL не найден",
    "{count} glyph records; a font has {expected}": "записей глифов: {count}; в шрифте их {expected}",
    "cell height {value} is not (glyph height + 1) / atlas height = {expected}":
        "высота ячейки {value} не равна (высота глифа + 1) / высота атласа = {expected}",
    "spans {span} texels, advance {advance} + 1 expected": "занимает {span} текселей, ожидалось шаг {advance} + 1",
    "{count} glyphs span other than advance + 1 texels (10 listed)":
        "глифов, занимающих не шаг + 1 текселей: {count} (показаны 10)",
    "atlas of {width}x{height} with {count} levels": "атлас {width}x{height} с уровнями: {count}",
    "atlas: {message}": "атлас: {message}",
    "the {width}x{height} atlas (format {format}, {count} levels) needs {need} bytes; the font holds {size}":
        "атласу {width}x{height} (формат {format}, уровней: {count}) нужно {need:байт|байта|байт}; в шрифте {size}",
    "{count} bytes after the atlas (kept)": "{count:байт|байта|байт} после атласа (сохранены)",
    "{method} is used by no shipped archive; members are written as LZSS (0x040) or Deflate (0x100)":
        "{method} не используется ни одним архивом игры; элементы записываются как LZSS (0x040) или Deflate (0x100)",
    "member name {name}: 1 to {count} printable ASCII characters, no spaces":
        "имя элемента {name}: от 1 до {count} печатных символов ASCII, без пробелов",
    "a member named {name} exists": "элемент с именем {name} уже есть",
    "no member named {name}": "нет элемента с именем {name}",
    "{count} members of {size} unpacked bytes in all; an archive holds at most 32767 members and 4 GiB":
        "элементов: {count}, всего {size} распакованных байт; в архиве не больше 32767 элементов и 4 ГиБ",
    "entry count {count} at +4 but {again} at +6 (the loader checks both)":
        "число записей {count} по +4, но {again} по +6 (загрузчик проверяет оба)",
    "entry count {count} needs a {size}-byte table; only {left} bytes follow the header":
        "числу записей {count} нужна таблица в {size:байт|байта|байт}; после заголовка лишь {left:байт|байта|байт}",
    "header +0x10 holds {value}, the unpacked sizes add up to {total}":
        "в заголовке по +0x10 записано {value}, а распакованные размеры дают в сумме {total}",
    "the table is marked sorted (0xABBA) but its sort fields do not list the names in order; the loader then scans":
        "таблица помечена отсортированной (0xABBA), но её поля сортировки не перечисляют имена по порядку; загрузчик "
        "тогда ищет перебором",
    "the archive has members that could not be read; it cannot be written back":
        "в архиве есть элементы, которые не удалось прочитать; записать его обратно нельзя",
    "{method} ({value}) is used by no shipped archive and is not written; replace it as LZSS or Deflate":
        "{method} ({value}) не используется ни одним архивом игры и не записывается; замените элемент как LZSS или "
        "Deflate",
    "packed size {size} runs {count} bytes past the end of the file; read up to the end":
        "упакованный размер {size} выходит на {count:байт|байта|байт} за конец файла; прочитано до конца",
    "the Deflate stream goes on past the declared size": "поток Deflate продолжается за объявленным размером",
    "the name repeats row {index}'s; lookups find the first": "имя повторяет имя строки {index}; поиск находит первую",
    "{method} is used by no shipped archive; the member is read but not written back":
        "{method} не используется ни одним архивом игры; элемент читается, но не записывается обратно",
    # effects (FXID) and explosions (.exp)
    "explosion {member} is not in the archive": "взрыва {member} нет в архиве",
    "entry {member} is not an explosion (EXPL)": "элемент {member} — не взрыв (EXPL)",
    "effect {member} is not in the archive": "эффекта {member} нет в архиве",
    "entry {member} is not an effect (FXID)": "элемент {member} — не эффект (FXID)",
    "{member}: {name} is not an editable field of an explosion ({fields})":
        "{member}: {name} — не изменяемое поле взрыва ({fields})",
    "{member}: {name} must be a whole number, not {value}": "{member}: {name} должно быть целым числом, а не {value}",
    "{member}: {name} must be a number, not {value}": "{member}: {name} должно быть числом, а не {value}",
    "{member}: {name} {value} does not fit an i32": "{member}: {name} {value} не помещается в i32",
    "{archive}/{member} was not found": "{archive}/{member} не найден",
    "explosion {member} is edited twice, {field} {first} and {second}: make the Empties agree or delete one":
        "взрыв {member} изменён дважды, {field} {first} и {second}: согласуйте пустышки или удалите одну",
    "explosion {name} was edited but the archive it came from is not known: import the model again":
        "взрыв {name} изменён, но архив, из которого он прочитан, неизвестен: импортируйте модель заново",
    "control point {index} is not in the list ({count} points)":
        "контрольной точки {index} нет в списке ({count} точек)",
    "{count} slots given; an explosion has {slots}": "задано слотов: {count}; у взрыва их {slots}",
    "{size} bytes: an explosion is {expected} bytes":
        "{size:байт|байта|байт}: взрыв занимает {expected:байт|байта|байт}",
    # building interiors: the hall way (mesh stream 17) and the ground plan (.bas)
    "{name}: hall way, {vertices} vertices on nodes {joints}, {links} links ({gates}), {places}, attr3 {attr3}":
        "{name}: граф проходов, вершин: {vertices} на узлах {joints}, связей: {links} ({gates}), {places}, "
        "attr3 {attr3}",
    "{name}: hall way, {vertices} vertices on nodes {joints}, {links} links ({gates}), {places}, attr3 {attr3}, "
    "{count} bytes after the links":
        "{name}: граф проходов, вершин: {vertices} на узлах {joints}, связей: {links} ({gates}), {places}, "
        "attr3 {attr3}, {count:байт|байта|байт} после связей",
    "the {ring} ring has {count} corners; {given} given (corners can be moved, not added or removed)":
        "у кольца {ring} углов: {count}; задано {given} (углы можно двигать, но не добавлять и не удалять)",
    "the inner ring needs a triangle and a corner per corner":
        "внутреннему кольцу нужны треугольник и его угол для каждого угла",
    "{count} {side} contours cannot fit in the {size} bytes left":
        "контуры ({side}, {count}) не помещаются в оставшиеся {size:байт|байта|байт}",
    "only the two-ring form of a ground plan can be edited (this one is carried as read)":
        "изменять можно только план основания из двух колец (этот сохраняется как прочитан)",
    "ends at byte {offset} inside {what}": "обрывается на байте {offset} внутри {what}",
    "{what}: {count} records need {size} bytes at byte {offset}, {left} remain":
        "{what}: {count:запись|записи|записей} требуют {size:байт|байта|байт} на байте {offset}, осталось {left}",
    "{count} bytes after the contours (carried as read)":
        "{count:байт|байта|байт} после контуров (сохранены как прочитаны)",
    "{inner} inner and {outer} outer contours: every retail plan has one of each; the public readings differ on "
    "this form (carried as read)":
        "внутренних контуров: {inner}, внешних: {outer}; в каждом плане игры их по одному; открытые прочтения "
        "расходятся в этой форме (сохранён как прочитан)",
    "{message} (carried as read)": "{message} (сохранено как прочитано)",
    "{side} contour {index} has {count} corners; retail rings have {low}-{high} (kept)":
        "контур {side} {index}: углов {count}; у колец игры их {low}-{high} (сохранён)",
    "{side} contour {index} does not end on its first corner (kept)":
        "контур {side} {index} не кончается на своём первом угле (сохранён)",
    "{side} contour {index} has a point that is not finite (kept)":
        "в контуре {side} {index} есть точка, не являющаяся конечным числом (сохранён)",
    "{side} contour {index} winds clockwise; all retail rings wind anticlockwise (kept)":
        "контур {side} {index} идёт по часовой стрелке; все кольца игры идут против неё (сохранён)",
    "{size} bytes, but attr1 {vertices} vertices and attr2 {links} links take {need} (20 x vertices + 40 x links)":
        "{size:байт|байта|байт}, но вершины attr1 ({vertices}) и связи attr2 ({links}) занимают {need} "
        "(20 x вершины + 40 x связи)",
    "link {index} joins vertex {start} to {end}; there are {count} vertices":
        "связь {index} соединяет вершину {start} с {end}; вершин всего {count}",
    "link {index} is shut (tail words 1 and 5 are 0; no retail link is)":
        "связь {index} закрыта (слова хвоста 1 и 5 равны 0; в игре таких нет)",
    "vertex {index} hangs on node {node}; the model has {count} nodes (kept)":
        "вершина {index} висит на узле {node}; у модели узлов: {count} (сохранена)",
    "{finding} (the hall way is not shown)": "{finding} (граф проходов не показан)",
    "the hall way (stream 17) is written as the scene shows it":
        "граф проходов (поток 17) записан так, как его показывает сцена",
    "{where} has {count} vertices, the model's stream 17 {expected}: vertices can be moved, not added or deleted":
        "{where}: вершин {count}, в потоке 17 модели {expected}: вершины можно двигать, но не добавлять и не "
        "удалять",
    "{where}: vertex {index} hangs on node {node}; the model has {count} nodes":
        "{where}: вершина {index} висит на узле {node}; у модели узлов: {count}",
    "{where} has no edges left; the model's stream 17 has {count} links":
        "{where}: не осталось рёбер; в потоке 17 модели связей: {count}",
    "ground plan {reference}: {reason}": "план основания {reference}: {reason}",
    "ground plan {where} was changed by another program since the import; writing the scene's would lose that "
    "change (Replace Changed Files overrides)":
        "план основания {where} изменила другая программа после импорта; запись плана из сцены потеряла бы это "
        "изменение (его перекрывает «Заменять изменённые файлы»)",
    "ground plan {reference} was not found: the building is imported without it":
        "план основания {reference} не найден: здание импортировано без него",
    "ground plan {reference} has no inner and outer ring to show":
        "в плане основания {reference} нет внутреннего и внешнего колец, которые можно показать",
    "{name} is not a field of an explosion": "{name} — не поле взрыва",
    "an explosion has {count} slots": "у взрыва {count} слотов",
    "hit kind {kind} is none of 1-4 (kept)": "вид попадания {kind} — не из 1-4 (сохранён)",
    "damage or radius is not finite (kept)": "урон или радиус — не конечное число (сохранены)",
    "placement {value} is none of 0-7 (kept)": "размещение {value} — не из 0-7 (сохранено)",
    "negative damage {damage} or radius {radius} (kept)": "отрицательный урон {damage} или радиус {radius} (сохранены)",
    "slot names an archive or a member but not both": "слот называет архив или элемент, но не оба",
    "slot {part} name has no NUL within its {size} bytes": "имя {part} слота без NUL в своих {size} байтах",
    "{name} is not a header field (fields: {fields})": "{name} — не поле заголовка (поля: {fields})",
    "{size} bytes: an effect starts with a {header}-byte header":
        "{size:байт|байта|байт}: эффект начинается с заголовка в {header:байт|байта|байт}",
    "emitter count {count} needs at least {need} bytes; {left} follow the header":
        "число излучателей {count} требует не меньше {need:байт|байта|байт}; после заголовка {left}",
    "a {kind} emitter names no material or sound": "излучатель «{kind}» не называет ни материала, ни звука",
    "header field {name} takes {count} values": "поле заголовка {name} принимает значений: {count}",
    "header field {name}: {reason}": "поле заголовка {name}: {reason}",
    "no emitter {index} (the effect has {count})": "нет излучателя {index} (у эффекта их {count})",
    "emitter {index} starts at byte {at}, past the end ({size} bytes)":
        "излучатель {index} начинается с байта {at}, за концом ({size:байт|байта|байт})",
    "emitter {index} at byte {at}: type word {word} has type {kind}, none of 1-10":
        "излучатель {index} на байте {at}: слово типа {word} даёт тип {kind}, не из 1-10",
    "emitter {index} ({kind}, {length} bytes at byte {at}) runs past the end of the {size}-byte effect":
        "излучатель {index} ({kind}, {length:байт|байта|байт} с байта {at}) выходит за конец эффекта в "
        "{size:байт|байта|байт}",
    "{count} bytes follow the last of the {emitters} emitters (every effect ends with its last block)":
        "{count:байт|байта|байт} после последнего из {emitters} излучателей (каждый эффект кончается последним блоком)",
    "{count} bytes follow the last of the {emitters} emitters (kept)":
        "{count:байт|байта|байт} после последнего из {emitters} излучателей (сохранены)",
    "{count} bytes follow the last emitter (every retail effect ends with its last block)":
        "{count:байт|байта|байт} после последнего излучателя (каждый эффект игры кончается последним блоком)",
    "time mode {mode} is none of 0-17 (kept; t stays 0)": "режим времени {mode} — не из 0-17 (сохранён; t остаётся 0)",
    "duration {value} is not a finite time >= 0 (kept)": "длительность {value} — не конечное время >= 0 (сохранена)",
    "{kind} field {name}: {reason}": "поле {name} излучателя «{kind}»: {reason}",
    "{name} is not a named field of a {kind} emitter (named: {fields})":
        "{name} — не именованное поле излучателя «{kind}» (именованные: {fields})",
    "a type-{kind} block, which no retail effect has (kept)":
        "блок типа {kind}, какого нет ни в одном эффекте игры (сохранён)",
    "window {low}..{high} is not an ordered span inside 0..1 (kept)":
        "окно {low}..{high} — не упорядоченный отрезок внутри 0..1 (сохранено)",
    "name has no NUL within its {size} bytes": "в {size} байтах имени нет завершающего нуля",
    "the {kind} names no sound": "излучатель «{kind}» не называет звука",
    "the {kind} names no material": "излучатель «{kind}» не называет материала",
    "{source}: slot {index} names {archive}/{member}, which is not there":
        "{source}: слот {index} называет {archive}/{member}, которого нет",
    "{archive}/{member}: emitter {index} names {library}/{name}, which is not there":
        "{archive}/{member}: излучатель {index} называет {library}/{name}, которого нет",
    "{source}: group {group} record {record} puts {effect} on node {node}, which the model lacks ({count} nodes); "
    "it is shown at the model's root":
        "{source}: группа {group}, запись {record} ставит {effect} на узел {node}, которого у модели нет "
        "({count:узел|узла|узлов}); он показан в корне модели",
    "{path}: type the unit file's name (a .dat)": "{path}: введите имя файла юнита (.dat)",
    "No file named": "Файл не назван",
    # the briefing flythrough (briefing.cfg)
    "{key} = {value}: not a number the game reads": "{key} = {value}: игра не прочтёт это как число",
    "object {name} has no end": "у объекта {name} нет end",
    "{key} {value}: a quoted value cannot hold quotes or lines":
        "{key} {value}: значение в кавычках не может содержать кавычки или переводы строки",
    "waypoint {name} has no {key} line to write": "у точки маршрута {name} нет строки {key}, куда записать",
    "line {line}: object {name} opens inside {other} (no end before it)":
        "строка {line}: объект {name} открывается внутри {other} (перед ним нет end)",
    "{what}: no {keys} (every shipped waypoint has all 24 keys)":
        "{what}: нет {keys} (у каждой точки маршрута в игре все 24 ключа)",
    "{what}: unknown key(s) {keys} (carried)": "{what}: неизвестные ключи {keys} (сохранены)",
    "{what}: EdgeType {value} is none of {values}": "{what}: EdgeType {value} — не из {values}",
    "{what}: WaitType {value} is none of {values}": "{what}: WaitType {value} — не из {values}",
    "{what}: a flyaround with a RotateTime of 0 (the game refuses it)":
        "{what}: облёт (flyaround) с RotateTime, равным 0 (игра такой не принимает)",
    "{what}: a spline edge needs an EdgeTime above 0 (the game refuses it)":
        "{what}: переходу-сплайну нужно EdgeTime больше 0 (игра такой не принимает)",
    "{what}: LoopIndex {index} names no waypoint (of {count})":
        "{what}: LoopIndex {index} не называет ни одной точки маршрута (их {count})",
    "line {line}: end without an object": "строка {line}: end без объекта",
    "line {line}: neither object, end nor Key = value inside an object: {text}":
        "строка {line}: ни object, ни end, ни Ключ = значение внутри объекта: {text}",
    "{what}: {key} = {value} is no number (read as 0)": "{what}: {key} = {value} — не число (читается как 0)",
    "{path}: waypoint {name}'s camera Empty was deleted: the export cannot remove a waypoint (undo, or import the "
    "mission again)":
        "{path}: пустышка камеры точки маршрута {name} удалена: экспорт не умеет удалять точки маршрута "
        "(отмените или импортируйте миссию заново)",
    "{path}: waypoint {name}'s target Empty was deleted: the export cannot remove a waypoint (undo, or import the "
    "mission again)":
        "{path}: пустышка цели точки маршрута {name} удалена: экспорт не умеет удалять точки маршрута "
        "(отмените или импортируйте миссию заново)",
    "{name} copies a briefing waypoint: the export cannot add waypoints (delete the copy)":
        "{name} — копия точки маршрута брифинга: экспорт не умеет добавлять точки маршрута (удалите копию)",
    "{path}: waypoint {name}'s {key} is {value}, not {kind}":
        "{path}: у точки маршрута {name} {key} = {value}, а не {kind}",
    "{path}: waypoint {name}'s {key} property was deleted: the export cannot remove a key":
        "{path}: у точки маршрута {name} удалено свойство {key}: экспорт не умеет удалять ключи",
    "{path}: waypoint {name} has no {key} line: the export cannot add a key (delete the {prop} property)":
        "{path}: у точки маршрута {name} нет строки {key}: экспорт не умеет добавлять ключи (удалите свойство "
        "{prop})",
    "{key} {text}: {char} is no character of the game's text (cp1251)":
        "{key} {text}: {char} — не символ текста игры (cp1251)",
    "{path}: the World {name} is a copy of the sky's World {world}, edited apart: only the sky's World is "
    "written (edit it, or delete the copy)":
        "{path}: мир {name} — копия мира неба {world}, изменённая отдельно: записывается только мир неба "
        "(измените его или удалите копию)",
    "{key} = {value}: not a whole number (a waypoint's index)":
        "{key} = {value}: не целое число (это номер точки маршрута)",
    "{path}: {name}'s colour is not a number (NaN): the sky's colours are bytes":
        "{path}: цвет {name} — не число (NaN): цвета неба хранятся байтами",
    "{path}: {name}'s colour: the shown keyframe (version {version}) has no slot {slot} to hold it (the game "
    "makes it of slot 19)":
        "{path}: цвет {name}: в показанном ключевом кадре (версии {version}) нет слота {slot} для него (игра "
        "делает его из слота 19)",
    "{path}: {first} and {second} show one {part} of the keyframe, edited to different values":
        "{path}: {first} и {second} показывают один {part} ключевого кадра, изменённый по-разному",
    "{reason} (the briefing is not shown; the file is left as it is)":
        "{reason} (брифинг не показан; файл оставлен как есть)",
    "{path}: cannot read: {reason} (the briefing is not shown)":
        "{path}: не удаётся прочитать: {reason} (брифинг не показан)",
    # the sky (sky.ske)
    "{path}: the World {name} has no colour node named {nodes} (renamed or deleted): name it so again":
        "{path}: в мире (World) {name} нет цветового узла с именем {nodes} (переименован или удалён): верните "
        "ему это имя",
    "{count} byte(s) after the last word (carried)": "{count:байт|байта|байт} после последнего слова (сохранены)",
    "no section: the game has no day to play": "нет ни одной секции: игре нечего проигрывать как сутки",
    "section {index}: a day of 0:00 puts every keyframe at once":
        "секция {index}: сутки длиной 0:00 ставят все ключевые кадры в один момент",
    "section {index}: keyframes not in time order (the game sorts them)":
        "секция {index}: ключевые кадры не по порядку времени (игра их сортирует)",
    "the clock starts in section {index}, of {count}": "часы начинаются в секции {index} из {count}",
    "{what}: version {version} (\"Atmosphere file version is not up to date\")":
        "{what}: версия {version} («Atmosphere file version is not up to date»)",
    "{what}: stamped {hour}:{minute}": "{what}: отметка времени {hour}:{minute}",
    "{what}: event {opcode}, of 0 to 9 (the game does nothing)":
        "{what}: событие {opcode}, а бывают 0–9 (игра ничего не делает)",
    "section {index} keyframe {keyframe}: {what} starts and never stops":
        "секция {index}, ключевой кадр {keyframe}: {what} начинается и не заканчивается",
    "{what}: {event} starts without its {part} (the game says \"{name} ... not specified\")":
        "{what}: {event} начинается без своего {part} (игра пишет «{name} ... not specified»)",
    "{what}: {event} stops without having started": "{what}: {event} заканчивается, не начавшись",
    "{path}: the sky's World was deleted: the sky is written as read":
        "{path}: мир (World) неба удалён: небо записывается как было прочитано",
    "section {index} keyframe {keyframe} ({hour}:{minute})":
        "секция {index}, ключевой кадр {keyframe} ({hour}:{minute})",
    "{path}: no keyframe to show (the sky is not shown; the file is left as it is)":
        "{path}: нет ключевого кадра для показа (небо не показано; файл оставлен как есть)",
    "{reason} (the sky is not shown; the file is left as it is)":
        "{reason} (небо не показано; файл оставлен как есть)",
    "{path}: cannot read: {reason} (the sky is not shown)": "{path}: не удаётся прочитать: {reason} (небо не показано)",
    "Time of Day: {reason}": "Время суток: {reason}",
    # the operators
    "No file to import": "Нет файла для импорта",
    "{path}: cannot read: {reason}": "{path}: не удаётся прочитать: {reason}",
    "{path}: cannot write: {reason}": "{path}: не удаётся записать: {reason}",
    "cannot read: {reason}": "не удаётся прочитать: {reason}",
    "model {name} has no msh_source_path: it was not imported from a file, so there is no source to write into":
        "у модели {name} нет msh_source_path: она импортирована не из файла, и записывать её некуда",
    "Import failed, nothing was kept: {reason}": "Импорт не удался, ничего не оставлено: {reason}",
    "Imported {count} model(s) with {warnings} warning(s); first: {first}":
        "Импортировано моделей: {count}, предупреждений: {warnings}; первое: {first}",
    "Wrote {path}: {edited} node track(s) rewritten, geometry rebuilt":
        "Записан {path}: переписано дорожек узлов: {edited}, геометрия перестроена",
    "Wrote {path}: {edited} node track(s) rewritten": "Записан {path}: переписано дорожек узлов: {edited}",
    "an export was stopped while it replaced {names}: all of them were put back as they were before it":
        "экспорт был прерван, когда заменял {names}: все они возвращены в состояние до него",
    "an export stopped before it had tidied up had written all of {names}: kept":
        "экспорт, прерванный до уборки, успел записать все файлы {names}: они сохранены",
    "Nothing to write: {path} and the files beside it already hold the model":
        "Записывать нечего: {path} и файлы рядом с ним уже содержат модель",
    "... and {count} more errors": "... и ещё ошибок: {count}",
    "{path}: is a folder, not a file: type the file's name (a .msh model, or an .rlb archive)":
        "{path}: это папка, а не файл: введите имя файла (модель .msh или архив .rlb)",
    # ---- every report template in the code (tests/test_report_templates.py finds them)
    # the operators and the panel
    "Import failed, nothing was kept: {kind}: {reason}": "Импорт не удался, ничего не оставлено: {kind}: {reason}",
    "{path}: no model of the archive is ticked in the list": "{path}: в списке не отмечена ни одна модель архива",
    "export check: {errors} refusal(s), {warnings} warning(s)":
        "проверка экспорта: отказов: {errors}, предупреждений: {warnings}",
    "nothing named {name} in the model": "в модели нет ничего с именем {name}",
    "{count} node track(s) rewritten: {names}": "переписываются дорожки узлов ({count}): {names}",
    "{count} node track(s) rewritten: {names} and {more} more":
        "переписываются дорожки узлов ({count}): {names} и ещё {more}",
    "{count} controller state field(s) edited: the controller is written too":
        "изменено полей состояний контроллера: {count}; контроллер тоже записывается",
    "{name}: {slot} was not imported": "{name}: слот «{slot}» не импортирован",
    "{name}: no game model to sample (export check the model first)":
        "{name}: нет модели игры для расчёта позы (сначала проверьте экспорт модели)",
    "Imported {count} part(s) of {name} with {warnings} warning(s); first: {first}":
        "Импортировано частей {name}: {count}, предупреждений: {warnings}; первое: {first}",
    "Wrote {path}: {count} part(s) changed, {moved} moved to another socket":
        "Записан {path}: изменено частей: {count}, перенесено на другое гнездо: {moved}",
    "Left {path} as it is (nothing of the scene changes it): {count} part(s) changed":
        "{path} оставлен как есть (сцена в нём ничего не меняет): изменено частей: {count}",
    "Wrote {path} and {others}: {edited} node track(s) rewritten":
        "Записаны {path} и {others}: переписано дорожек узлов: {edited}",
    "Wrote {path} and {others}: {edited} node track(s) rewritten, geometry rebuilt":
        "Записаны {path} и {others}: переписано дорожек узлов: {edited}, геометрия перестроена",
    # the operating system's reasons (OSError.strerror), inside "cannot read/write: {reason}"
    "No such file or directory": "Нет такого файла или каталога",
    "Permission denied": "Доступ запрещён",
    "Is a directory": "Это каталог",
    "Not a directory": "Это не каталог",
    "File exists": "Файл уже существует",
    "No space left on device": "На устройстве не осталось места",
    "Read-only file system": "Файловая система только для чтения",
    "Directory not empty": "Каталог не пуст",
    "Operation not permitted": "Операция не разрешена",
    "File name too long": "Слишком длинное имя файла",
    "Input/output error": "Ошибка ввода-вывода",
    "Disk quota exceeded": "Превышена дисковая квота",
    "Device or resource busy": "Устройство или ресурс занято",
    "Too many open files": "Слишком много открытых файлов",
    "Invalid argument": "Недопустимый аргумент",
    "The system cannot find the file specified": "Не удаётся найти указанный файл",
    "The system cannot find the path specified": "Системе не удаётся найти указанный путь",
    "Access is denied": "Отказано в доступе",
    "The process cannot access the file because it is being used by another process":
        "Процесс не может получить доступ к файлу, так как этот файл занят другим процессом",
    # slot names inside reports (core.msh.streams.slot_label), as the panel shows them
    "intact LOD {lod}": "без повреждений LOD {lod}",
    "intact first-person": "без повреждений от первого лица",
    "damage {stage} LOD {lod}": "повреждение {stage} LOD {lod}",
    "damage {stage} first-person": "повреждение {stage} от первого лица",
    # the import: materials, clips, units
    "material {name} is not in {library}; the game uses {used}":
        "материала {name} нет в {library}; игра использует {used}",
    "texture {name} is not in {library}": "текстуры {name} нет в {library}",
    "texture {name} has format {format}, which the game does not read":
        "текстура {name} в формате {format}, который игра не читает",
    "texture {name} in {library} is unreadable: {reason}": "текстура {name} в {library} не читается: {reason}",
    "material {name} is unreadable: {reason}": "материал {name} не читается: {reason}",
    "batch material {index} has no row in the {count}-row WEAR list":
        "у материала пакета отрисовки {index} нет строки в списке WEAR (строк: {count})",
    "no texture {name}": "нет текстуры {name}",
    "the archive holds no material list (WEAR entry) for {model}, so its batches cannot be matched to "
    "Material.lib: materials are placeholders":
        "в архиве нет списка материалов (записи WEAR) для {model}, поэтому его пакеты отрисовки не сопоставить "
        "с Material.lib: материалы — заглушки",
    "no material list {stem}.wea was found beside the model, so its batches cannot be matched to Material.lib: "
    "materials are placeholders. Put the model's {name}.wea (it is in the game's archive beside the model) next "
    "to the file, or import the .rlb archive that holds both":
        "рядом с моделью не найден список материалов {stem}.wea, поэтому её пакеты отрисовки не сопоставить с "
        "Material.lib: материалы — заглушки. Положите {name}.wea модели (он лежит в архиве игры рядом с моделью) "
        "рядом с файлом или импортируйте архив .rlb, где есть и то и другое",
    "Textures.lib was not found next to the file, in its parent folders or in the game folder: {count} "
    "material(s) that name a texture ({names}, ...) are shown untextured; set the Game Folder":
        "Textures.lib не найден ни рядом с файлом, ни в родительских папках, ни в папке игры: материалы с "
        "текстурой ({count}: {names}, ...) показаны без текстур; укажите папку игры",
    "material {name}: its animation is not shown: {reason}": "материал {name}: его анимация не показана: {reason}",
    "material {name}: phase 0 shows no texture; the texture switches of its animation ({phases}) are not shown":
        "материал {name}: фаза 0 без текстуры; смены текстуры в его анимации ({phases}) не показаны",
    "material {name}: {problem}; its animation shows that entry untextured":
        "материал {name}: {problem}; его анимация показывает эту запись без текстуры",
    "material {name} is worn by the belts of channels {first} and {second}: in Blender channel {channel}'s slider "
    "plays it on both":
        "материал {name} носят гусеницы каналов {first} и {second}: в Blender ползунок канала {channel} "
        "проигрывает его на обеих",
    "material {name} is worn by belt node {node} and by node(s) {nodes}: in Blender channel {channel}'s slider "
    "plays it on all of them (the game plays it by the clock there)":
        "материал {name} носят узел гусеницы {node} и узлы {nodes}: в Blender ползунок канала {channel} "
        "проигрывает его на всех (игра там проигрывает его по часам)",
    "controller channel {index} (flag 0x10, a belt) is on node {node}, which wears no animated material of its "
    "own: it has no slider":
        "канал контроллера {index} (флаг 0x10, гусеница) стоит на узле {node}, у которого нет своего "
        "анимированного материала: ползунка у него нет",
    "frame rate {rate} is not a positive number": "частота кадров {rate} — не положительное число",
    "the clips need {frames} keys on each of {count} nodes at {rate} frames per second, more than {limit}: "
    "choose a lower frame rate":
        "клипам нужно {frames:ключ|ключа|ключей} на каждом из узлов ({count}) при {rate:кадре|кадрах|кадрах} в "
        "секунду, больше {limit}: "
        "выберите частоту кадров ниже",
    "no objects.rlb in {folder} or the folders above the unit":
        "нет objects.rlb ни в {folder}, ни в папках выше юнита",
    "no objects.rlb in {folder}": "нет objects.rlb в {folder}",
    "the root part cannot be read: {reason}": "корневая часть не читается: {reason}",
    "archive {archive} not found below {folder}": "архив {archive} не найден внутри {folder}",
    "archive {archive} not found": "архив {archive} не найден",
    "no {name} in {archive}": "нет {name} в {archive}",
    "component {component} ({record}) is not imported: its model is missing or it is not mounted":
        "компонент {component} ({record}) не импортирован: его модели нет или он не установлен",
    # the export: units, clips, controller states, scale
    "no unit to export: import one with File > Import > Parkan Unit":
        "нет юнита для экспорта: импортируйте его через Файл > Импорт > Юнит «Паркана»",
    "{count} units in the scene: select an object of the one to export":
        "в сцене юнитов: {count}; выделите объект того, который нужно экспортировать",
    "part {name} hangs on {target}, not on a node of its parent part {parent}: a part moves only to another "
    "socket of the same parent":
        "часть {name} висит на {target}, а не на узле родительской части {parent}: часть переносится только "
        "на другое гнездо того же родителя",
    "part {name} names a component the unit does not have": "часть {name} ссылается на компонент, которого у юнита нет",
    "part {name} was not imported from an archive entry": "часть {name} импортирована не из записи архива",
    "parts {first} and {second} share one model and were edited differently; make the same edit on both":
        "части {first} и {second} используют одну модель и изменены по-разному; внесите одинаковую правку в обе",
    "{path} has no entry {index} any more": "в {path} больше нет записи {index}",
    "components {components} use the same model and change with it":
        "компоненты {components} используют ту же модель и меняются вместе с ней",
    "moved from socket {old} (label {old_label}) to socket {new} (label {new_label}): check that the new socket "
    "takes this part (docs/formats/units.md)":
        "перенесена с гнезда {old} (метка {old_label}) на гнездо {new} (метка {new_label}): проверьте, что новое "
        "гнездо принимает эту часть (docs/formats/units.md)",
    "{name} was not imported with clips and their states": "{name} импортирована без клипов и их состояний",
    "node {node} has no {holder} in {name}: the clips cannot be made again":
        "у узла {node} нет {holder} в {name}: клипы нельзя построить заново",
    "{name}: {reason}; the clips are not made again, as that would lose the clip's edits":
        "{name}: {reason}; клипы не строятся заново, так как это потеряло бы правки клипа",
    "node {node} has no timeline curve for {path}[{index}]: not written":
        "у узла {node} нет кривой временной шкалы для {path}[{index}]: не записано",
    "{problem}, so the export would hold {nodes} nodes at each of {frames} frames ({poses} poses, more than "
    "{limit}): {what}, or export a shorter range (Frame Range: Custom)":
        "{problem}, поэтому экспорт держал бы узлы ({nodes}) в каждом из кадров ({frames}) (поз: {poses}, больше "
        "{limit}): {what} или экспортируйте более короткий диапазон («Диапазон кадров: Свой»)",
    "texture format {format} is not one of {formats}": "формат текстур {format} — не один из {formats}",
    "unknown frame range {range}": "неизвестный диапазон кадров {range}",
    "unknown key mode {keys}": "неизвестный режим ключей {keys}",
    "the root's {property} is not as the import wrote it ({reason}); import the model again":
        "{property} корня не такое, каким его записал импорт ({reason}); импортируйте модель заново",
    "{field} {values}: too large for the file's 32-bit float; property {prop} on {root}":
        "{field} {values}: слишком велико для 32-битного числа файла; свойство {prop} у {root}",
    "{path} is no longer an archive": "{path} больше не архив",
    "{path} no longer holds the CTLD entry {entry}": "в {path} больше нет записи CTLD {entry}",
    "{path} cannot be read ({reason})": "{path} не читается ({reason})",
    "there is no {stem}.ctl beside {path} and {why}": "рядом с {path} нет {stem}.ctl, и {why}",
    "slot area (Res2 +0x30) written as 0 for the new slot(s) {slots}: how the game computes it is not known "
    "(armour mass in the game = armour value x area); the volume (+0x34) is computed":
        "площадь слота (Res2 +0x30) записана как 0 для новых слотов {slots}: как её вычисляет игра, неизвестно "
        "(масса брони в игре = значение брони × площадь); объём (+0x34) вычислен",
    "node(s) {names} are scaled in Blender; MSH nodes have no scale: the scale is baked into their parts' "
    "geometry and their children's positions":
        "узлы {names} масштабированы в Blender; у узлов MSH нет масштаба: масштаб запечён в геометрию их частей "
        "и в положения их дочерних узлов",
    # core: controllers (.ctl, CTLD) and clips
    "{count} states: the planner is run over at most {limit}":
        "состояний: {count}; планировщик работает не больше чем с {limit}",
    "{count} states: the planner is run over at most {limit}, so the transition graph is not checked":
        "состояний: {count}; планировщик работает не больше чем с {limit}, поэтому граф переходов не проверяется",
    "step {step} is not a finite number": "шаг {step} — не конечное число",
    "node {node} of {count}": "узел {node} из {count}",
    "{count} states need contacts ({states}, B) and costs ({rows}, {columns}); got {contacts} and {costs}":
        "{count:состоянию|состояниям|состояниям} нужны контакты ({states}, B) и стоимости ({rows}, {columns}); "
        "получены {contacts} и "
        "{costs}",
    "{what} ({size} bytes at byte {at}) runs past the end of the {length}-byte controller":
        "{what} ({size:байт|байта|байт} с байта {at}) выходит за конец контроллера ({length:байт|байта|байт})",
    "count {name} is {count}": "счётчик {name} равен {count}",
    "label length {length}": "длина метки {length}",
    "{count} actions": "действий: {count}",
    "{count} costs are negative or not finite (first: to {to} from {source}); they are taken as no edge":
        "стоимости ({count}) отрицательны или не конечны (первая: в {to} из {source}); они считаются "
        "отсутствием перехода",
    "{count} bytes follow section 5 (the game does not read them)":
        "после раздела 5 идут байты ({count}) (игра их не читает)",
    "frames {frames} are not all finite: the sampler shows the fallback key for them":
        "кадры {frames} не все конечны: для них показывается резервный ключ",
    "step length {length} ms; the step is held to 10..5000 ms": "длина шага {length} мс; шаг ограничен 10..5000 мс",
    "entry group {group} of {count}": "группа входа {group} из {count}",
    "frames {first}..{last} are not finite": "кадры {first}..{last} не конечны",
    "node {node} of a {count}-node model": "узел {node} модели из {count:узла|узлов|узлов}",
    "class {kind}; the factory makes classes 1..30": "класс {kind}; фабрика создаёт классы 1..30",
    "channel index {index} of {count} channels": "индекс канала {index} при {count:канале|каналах|каналах}",
    "label is not NUL-terminated": "метка не завершается нулём",
    "group index {index} of {count}": "индекс группы {index} из {count}",
    "frames {frames} reach past the model's {count} frames": "кадры {frames} выходят за кадры модели ({count})",
    "fixed step of 0 ms: the step is held to the shortest, 10 ms":
        "фиксированный шаг 0 мс: шаг ограничен кратчайшим, 10 мс",
    "{name} box {low}..{high} is empty on a switched-on axis: the state never applies":
        "область {name} {low}..{high} пуста по включённой оси: состояние никогда не применяется",
    "contact {index}: landing group {group} of {count}": "контакт {index}: группа приземления {group} из {count}",
    "no state is an anchor: nothing plans, no clip plays":
        "ни одно состояние не опорное: ничего не планируется, ни один клип не играет",
    "anchor has no way back to itself: it forms no clip":
        "из опорного состояния нет пути обратно: клипа оно не образует",
    "{count} states no anchor can reach (first: {first})":
        "состояний, недостижимых ни из одного опорного: {count} (первое: {first})",
    "no field {field}": "нет поля {field}",
    "{field}: the controller has {count} states": "{field}: у контроллера состояний: {count}",
    "{field}: {count} values, needs {needed}": "{field}: значений: {count}, нужно {needed}",
    "the controller has {count} clips": "у контроллера клипов: {count}",
    # core: animation tracks and sampling
    "node index out of range ({count} nodes)": "индекс узла вне диапазона (узлов: {count})",
    "legacy 24-byte node table cannot be sampled": "по старой 24-байтной таблице узлов позу не рассчитать",
    "legacy 24-byte node table has no animation to read": "в старой 24-байтной таблице узлов нет анимации для чтения",
    "fallback key {key} does not end a track starting at key {start} ({count} keys)":
        "резервный ключ {key} не завершает дорожку, начинающуюся с ключа {start} (ключей: {count})",
    "{count} tracks for {nodes} nodes": "{count:дорожка|дорожки|дорожек} на {nodes:узел|узла|узлов}",
    "frame count {count} is outside [1, {limit}]": "число кадров {count} вне [1, {limit}]",
    "{count} keys; at most {limit} can be indexed": "ключей: {count}; индексировать можно не больше {limit}",
    "{count} map blocks of {frames} frames do not fit 16-bit map starts":
        "блоки карты ({count}) по {frames:кадру|кадра|кадров} не помещаются в 16-битные начала карты",
    "map block [{start}, {end}) exceeds the {count} map words":
        "блок карты [{start}, {end}) выходит за слова карты ({count})",
    "track of node {node} is empty or ragged": "дорожка узла {node} пуста или неровная",
    "key times of node {node} do not strictly increase": "времена ключей узла {node} не строго возрастают",
    "node {node} has a map but fewer than 2 keys": "у узла {node} есть карта, но меньше 2 ключей",
    "track of node {node} holds a non-finite number": "в дорожке узла {node} есть не конечное число",
    # core: materials, textures, material lists
    "texture name {name} has no '.' in its first 17 characters (\"Bad texture name.\")":
        "в первых 17 символах имени текстуры {name} нет точки («Bad texture name.»)",
    "texture name {name}: its suffix picks palette {index}, past the 286 the runtime loads":
        "имя текстуры {name}: его окончание выбирает палитру {index}, а игра загружает только 286",
    "texture name {name} is {size} bytes; at most 15 fit":
        "имя текстуры {name} занимает {size:байт|байта|байт}; помещается не больше 15",
    "{count} animation blocks; the runtime takes at most {limit} (\"Too many animations for material.\")":
        "блоков анимации: {count}; игра принимает не больше {limit} («Too many animations for material.»)",
    "{count} bytes follow the last animation block": "после последнего блока анимации идут байты ({count})",
    "{what} at byte {at} runs past the {size}-byte payload": "{what} с байта {at} выходит за данные "
        "({size:байт|байта|байт})",
    "texture name fills all 16 bytes without a NUL": "имя текстуры занимает все 16 байт без завершающего нуля",
    "animation block {index} refers to phase {phase}; the material has {count}":
        "блок анимации {index} ссылается на фазу {phase}; у материала их {count}",
    "track times must be finite numbers": "времена дорожки должны быть конечными числами",
    "animation track has no keys": "у дорожки анимации нет ключей",
    "track key names entry {index}; the material has {count}":
        "ключ дорожки называет запись {index}; у материала их {count}",
    "{size} bytes; a Texm header needs {needed}": "{size:байт|байта|байт}; заголовку Texm нужно {needed}",
    "{width}x{height} format {format} with {mips} mip levels needs {needed} bytes; the payload has {size}":
        "{width}x{height} в формате {format} с уровнями MIP ({mips}) требует {needed:байт|байта|байт}; в данных {size}",
    "pixels of shape {shape} are not a (height, width, 4) picture":
        "пиксели формы {shape} — не изображение (высота, ширина, 4)",
    "format {format} is not one the game reads ({formats})": "формат {format} игра не читает ({formats})",
    "format {format} is not one the game reads": "формат {format} игра не читает",
    "mip level {level} does not exist ({count} levels)": "уровня MIP {level} нет (уровней: {count})",
    "width {width}, height {height} and mip count {mips} must be above 0":
        "ширина {width}, высота {height} и число уровней MIP {mips} должны быть больше 0",
    "{count} bytes after the mip chain are not a Page chunk": "байты после цепочки MIP ({count}) — не блок Page",
    "Page chunk of {count} rectangles needs {needed} bytes, has {size}":
        "блоку Page из {count:прямоугольника|прямоугольников|прямоугольников} нужно {needed:байт|байта|байт}, а "
        "есть {size}",
    "mip count {mips}: a {width}x{height} chain has at most {limit} levels (halving down to 1x1)":
        "уровней MIP: {mips}; у цепочки {width}x{height} их не больше {limit} (деление пополам до 1x1)",
    "Page rectangle ({x}, {y}, {w}x{h}) is not inside the {width}x{height} texture":
        "прямоугольник Page ({x}, {y}, {w}x{h}) не внутри текстуры {width}x{height}",
    "no blank line before LIGHTMAPS: the runtime's buffer parser misreads the lightmap count":
        "перед LIGHTMAPS нет пустой строки: разбор буфера в игре неверно прочтёт число карт освещения",
    "material name {name} cannot be stored in code page 1251": "имя материала {name} не записать в кодировке 1251",
    # core: models (building, editing, validating)
    "{triangles} triangles in {batches} batches exceed 16-bit ranges":
        "треугольники ({triangles}) в пакетах отрисовки ({batches}) выходят за 16-битные диапазоны",
    "a batch of more than 65535 indices cannot be stored": "пакет отрисовки больше чем из 65535 индексов не записать",
    "node {name}: parent {parent} does not exist": "узел {name}: родителя {parent} нет",
    "node does not exist": "узла нет",
    "{count} vertices; a batch indexes at most 65536": "вершин: {count}; пакет отрисовки индексирует не больше 65536",
    "triangle refers to a missing vertex": "треугольник ссылается на несуществующую вершину",
    "slot position {slot} is taken or not 0..14": "позиция слота {slot} занята или вне 0..14",
    "{count} face flags for {triangles} triangles": "{count:флаг|флага|флагов} граней на "
        "{triangles:треугольник|треугольника|треугольников}",
    "the node table is not the 38-byte layout: its slots cannot be edited":
        "таблица узлов не 38-байтная: её слоты нельзя править",
    "{count} records for {vertices} vertices: the vertices of the parts cannot be told apart, so no part can be "
    "edited alone":
        "{count:запись|записи|записей} на {vertices:вершину|вершины|вершин}: вершины частей не различить, поэтому "
        "ни одну часть нельзя править "
        "отдельно",
    "node {node}, slot position {position}: no such slot": "узел {node}, позиция слота {position}: такого слота нет",
    "its faces or vertex count changed, but the model's {stream} ({label}) holds a value for each imported vertex, "
    "which Blender does not show and cannot make for new ones; move vertices only, without adding or removing any":
        "изменились его грани или число вершин, но {stream} ({label}) модели хранит значение для каждой "
        "импортированной вершины, которого Blender не показывает и не может создать для новых; только "
        "перемещайте вершины, не добавляя и не удаляя их",
    "size {size} is smaller than the {header}-byte model header":
        "размер {size} меньше заголовка модели ({header:байт|байта|байт})",
    "slot table size {size} is not a multiple of 68": "размер таблицы слотов {size} не кратен 68",
    "attr1 {attr} differs from the slot count {count}": "attr1 {attr} не совпадает с числом слотов {count}",
    "attr2 {attr}, expected 0": "attr2 {attr}, ожидался 0",
    "attr3 {attr}, expected 0": "attr3 {attr}, ожидался 0",
    "attr3 {attr}, expected 68": "attr3 {attr}, ожидался 68",
    "attr3 {attr}, expected {expected}": "attr3 {attr}, ожидался {expected}",
    "slot batches [{start}, {end}) exceed the batch count {count}":
        "пакеты отрисовки слота [{start}, {end}) выходят за их число {count}",
    "slot triangles [{start}, {end}) exceed the triangle count {count}":
        "треугольники слота [{start}, {end}) выходят за число треугольников {count}",
    "node {node} frame {frame}: key {key} has no next key ({count} keys)":
        "узел {node}, кадр {frame}: у ключа {key} нет следующего (ключей: {count})",
    "node {node}: {count} frames point at keys before the node's own track":
        "узел {node}: кадры ({count}) указывают на ключи до собственной дорожки узла",
    "node stride (attr3) {attr} is neither 38 nor 24": "размер узла (attr3) {attr} — не 38 и не 24",
    # core: containers (NRes, .rlb) and the command line's choices
    "name {name} contains a NUL byte": "имя {name} содержит нулевой байт",
    "name {name} is {size} bytes, at most {limit} fit": "имя {name} занимает {size:байт|байта|байт}, помещается не "
        "больше {limit}",
    "empty name": "пустое имя",
    "bad magic {magic}, expected b'NRes'": "неверная сигнатура {magic}, ожидалась b'NRes'",
    "bad magic {magic}, expected b'Texm'": "неверная сигнатура {magic}, ожидалась b'Texm'",
    "entry count {count} needs a {size}-byte directory; only {left} bytes follow the header":
        "числу записей {count} нужен каталог в {size:байт|байта|байт}; после заголовка только {left:байт|байта|байт}",
    "negative entry count {count}": "отрицательное число записей {count}",
    "sort_index table is broken; lookups scan linearly": "таблица sort_index повреждена; поиск идёт перебором",
    "{count} entries share payload bytes with others (the first 10 are listed)":
        "записи ({count}) делят байты данных с другими (перечислены первые 10)",
    "payload [{start}, {end}) lies outside the data area [{first}, {last})":
        "данные [{start}, {end}) лежат вне области данных [{first}, {last})",
    "name {name}: {problem} cannot be stored in code page 1251": "имя {name}: {problem} не записать в кодировке 1251",
    "entry {name} (type {type})": "запись {name} (тип {type})",
    "--entry names a nested model, but this file is a model":
        "--entry называет вложенную модель, но этот файл — модель",
    "no entry named {name} (#N picks entry N)": "нет записи с именем {name} (#N выбирает запись N)",
    "no texture named {name} (#N picks entry N)": "нет текстуры с именем {name} (#N выбирает запись N)",
    "{name} is a {kind} entry, not a texture (Texm)": "{name} — запись {kind}, а не текстура (Texm)",
    # core: units (.dat, objects.rlb, .cpt, .ndp)
    "{size} bytes: a point list starts with a 4-byte count":
        "{size:байт|байта|байт}: список точек начинается с 4-байтного счётчика",
    "count {count} needs {needed} bytes, the file has {size}": "счётчику {count} нужно {needed:байт|байта|байт}, а "
        "в файле {size}",
    "{count} points but {names} names": "точек: {count}, а имён: {names}",
    "name has no NUL within its 32 bytes": "в 32 байтах имени нет завершающего нуля",
    "point {index}: position or vector is not finite": "точка {index}: положение или вектор не конечны",
    "point {index}: {what} {node} is not a node of the model ({count} nodes)":
        "точка {index}: {what} {node} — не узел модели (узлов: {count})",
    "{size} bytes: a unit tree starts with an 8-byte header":
        "{size:байт|байта|байт}: дерево юнита начинается с 8-байтного заголовка",
    "{count} children of this component are missing at the end of the file":
        "в конце файла не хватает дочерних компонентов этого компонента: {count}",
    "{size} bytes after the last whole 112-byte component":
        "{size:байт|байта|байт} после последнего целого 112-байтного компонента",
    "no components: a unit needs at least its root": "нет компонентов: юниту нужен хотя бы корень",
    "class word {word} is no unit type the sources list": "слово класса {word} — не тип юнита из известных источников",
    "component lies outside the root's tree: the root's subtree ends before it ({count} components left over)":
        "компонент вне дерева корня: поддерево корня кончается раньше (лишних компонентов: {count})",
    "negative child count {count}": "отрицательное число дочерних {count}",
    "child count {count} runs past the end: {after} components follow":
        "число дочерних {count} выходит за конец: далее компонентов {after}",
    "empty objects.rlb record name": "пустое имя записи objects.rlb",
    "archive {archive}: the game's units name objects.rlb": "архив {archive}: юниты игры называют objects.rlb",
    "class {kind} is none of 0..5": "класс {kind} — не из 0..5",
    "the root's attach is {attach}, -1 on every retail unit": "attach корня равен {attach}, а у всех юнитов игры -1",
    "attach {attach}: a part needs a socket node or a component index in its parent":
        "attach {attach}: части нужен узел-гнездо или индекс компонента в родителе",
    "names its own parent's record {record}": "называет запись своего же родителя {record}",
    "{what} name has no NUL within its 32 bytes": "в 32 байтах имени ({what}) нет завершающего нуля",
    "no such part to move": "такой части для переноса нет",
    "not mounted: its parent component {parent} is not mounted":
        "не установлен: родительский компонент {parent} не установлен",
    "not mounted: its parent component {parent} adds no nodes":
        "не установлен: родительский компонент {parent} не добавляет узлов",
    "attach {attach} is not a node of the parent part ({count} nodes)":
        "attach {attach} — не узел родительской части (узлов: {count})",
    "component {component}: {what} {index} is not a node of the part ({count} nodes)":
        "компонент {component}: {what} {index} — не узел части (узлов: {count})",
    "node {node}: parent {parent} is not a node of the part": "узел {node}: родитель {parent} — не узел части",
    "{size} bytes: a damage table starts with a 4-byte count":
        "{size:байт|байта|байт}: таблица повреждений начинается с 4-байтного счётчика",
    "negative row count {count}": "отрицательное число строк {count}",
    "hit points or density is not finite": "прочность или плотность не конечны",
    "negative hit points or density": "отрицательная прочность или плотность",
    "record {name}: {size} bytes is not a whole number of {slot}-byte slots":
        "запись {name}: {size:байт|байта|байт} — не целое число {slot}-байтных слотов",
    "record {name}: redirects run in a cycle ({route})": "запись {name}: перенаправления идут по кругу ({route})",
    "no record {name}": "нет записи {name}",
    "no record {name} (redirected from {source})": "нет записи {name} (перенаправление из {source})",
    "record {name} repeats record {seen} (names ignore case); lookups find the first":
        "запись {name} повторяет запись {seen} (регистр в именах не важен); поиск находит первую",
    "record {name}: tag {tag} is none the sources list": "запись {name}: метка {tag} — не из известных источников",
    "record {name}: more than {limit} redirects looking for {extension}":
        "запись {name}: больше {limit:перенаправления|перенаправлений|перенаправлений} при поиске {extension}",
    "record {name}: {count} slots, {tag} has {counts}": "запись {name}: слотов {count}, а у {tag} их {counts}",
    "record {name} slot {slot}: a name has no NUL within its 32 bytes":
        "запись {name}, слот {slot}: в 32 байтах имени нет завершающего нуля",
    "no record {name} in objects.rlb": "в objects.rlb нет записи {name}",
    ".ndp: {count} rows for a model of {nodes} nodes": ".ndp: {count:строка|строки|строк} на модель из "
        "{nodes:узла|узлов|узлов}",
    "socket node {attach} {name} of {record} is no Base_* node":
        "узел-гнездо {attach} {name} в {record} — не узел Base_*",
    ".cpt: {count} points name a {what} the model does not have (first {bad}; {nodes} nodes)":
        ".cpt: точки ({count}) называют {what}, которого у модели нет (первый {bad}; узлов: {nodes})",
    "name {name} must be at most {limit} bytes without NUL":
        "имя {name} должно занимать не больше {limit:байта|байт|байт} без нуля",
    # ---- end of the report templates' block
    # Write Clip to Timeline
    "Name the clip (or assign a clip's action to the model)":
        "Укажите клип (или назначьте модели действие клипа)",
    "{clip}: {count} edited node(s) written into the timeline":
        "{clip}: изменённых узлов записано во временную шкалу: {count}",
    "{name} has no clip {clip}": "у {name} нет клипа {clip}",
    "the action of clip {clip} was deleted": "действие клипа {clip} удалено",
    "the clip data ({property}) of {name} is unreadable: re-import the model":
        "данные клипов ({property}) у {name} не читаются: импортируйте модель заново",
    "the timeline action of {name} was deleted: nothing was written":
        "действие временной шкалы {name} удалено: ничего не записано",
    "node {node} has no timeline curve for {path}: not written":
        "у узла {node} нет кривой временной шкалы для {path}: не записано",
    "{clip}: the steps of states {states} blend two timeline frames all through; their keys are not written":
        "{clip}: шаги состояний {states} всё время смешивают два кадра временной шкалы; их ключи не записаны",
    "{clip}: the steps of states {states} blend two timeline frames in their first quarter; only the rest of "
    "each is written":
        "{clip}: шаги состояний {states} смешивают два кадра временной шкалы в первой четверти; записан только "
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
        "у модели нет геометрии для слота «{slot}» (стадия повреждения {stage}, LOD {lod}); есть: {present}",
    "the model has no geometry for {slot} (Damage Stage {stage}, LOD First-Person); it has {present}":
        "у модели нет геометрии для слота «{slot}» (стадия повреждения {stage}, LOD «от первого лица»); есть: "
        "{present}",
    "no model matches {pattern}": "ни одна модель не подходит под {pattern}",
    "the archive holds no model": "в архиве нет моделей",
    "the file is a map's (its terrain, not a model): import the map with File > Import > Parkan Map (Land.msh, "
    "data.tma)":
        "это файл карты (её ландшафт, а не модель): импортируйте карту через Файл > Импорт > Карта «Паркана» "
        "(Land.msh, data.tma)",
    "the file is a map's (its terrain, not a model): batch convert and batch thumbnails take maps; in Blender, "
    "File > Import > Parkan Map (Land.msh, data.tma)":
        "это файл карты (её ландшафт, а не модель): карты принимают batch convert и batch thumbnails; в Blender — "
        "Файл > Импорт > Карта «Паркана» (Land.msh, data.tma)",
    "entries {indices} are not all models": "не все записи {indices} — модели",
    "{count} indices is not a whole number of triangles; the last {rest} are ignored":
        "{count:индекс|индекса|индексов} — не целое число треугольников; последние {rest} пропущены",
    # core: containers and files
    "bad magic {magic}, expected {expected}": "неверная сигнатура {magic}, ожидалась {expected}",
    "empty file": "пустой файл",
    "truncated header: {size} bytes, an NRes header needs {needed}":
        "обрезанный заголовок: {size:байт|байта|байт}, заголовку NRes нужно {needed}",
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
        "в архиве {count:модель|модели|моделей} ({names}); выберите одну через --entry",
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
    # checks the retail files break or no source measured: warnings, the values kept (docs/refusing-checks.md)
    "frame count (attr2) is 0: every node shows its fallback key (a writer makes at least 1)":
        "число кадров (attr2) равно 0: каждый узел показывает резервный ключ (запись делает хотя бы 1)",
    "key time of node {node} is not finite ({time})": "время ключа узла {node} не конечно ({time})",
    "text holds a NUL before its stated length (kept)": "в тексте есть нулевой байт раньше заявленной длины (сохранён)",
    "{count} records for {vertices} vertices (kept as read; no source measured its count)":
        "{count:запись|записи|записей} на {vertices:вершину|вершины|вершин} (сохранены как есть; их число ни один "
        "источник не измерял)",
    "node {node}: the channel poses no node": "узел {node}: канал не ставит ни одного узла",
    "channel index {index} of {count} channels (kept; it drives nothing)":
        "индекс канала {index} при {count:канале|каналах|каналах} (сохранён; ничем не управляет)",
    "no group runs (kept as read)": "никакая группа не запускается (сохранено как есть)",
    "animation block {index} has no keys: it holds the first entry":
        "у блока анимации {index} нет ключей: он держит первую запись",
    "mip count {mips}: a {width}x{height} chain halves to 1x1 in {limit} levels; the further 1x1 levels are kept "
    "as read": "число mip-уровней {mips}: цепочка {width}x{height} доходит до 1x1 за "
        "{limit:уровень|уровня|уровней}; дальнейшие "
               "уровни 1x1 сохранены как есть",
    "LIGHTMAPS section with a count of 0 (kept as read)": "раздел LIGHTMAPS с числом 0 (сохранён как есть)",
    "refused by the retail profile: {count} errors": "отклонено профилем retail: ошибок {count}",
    "refused by the strict profile: {count} warnings (without --strict they do not fail)":
        "отклонено строгим профилем: предупреждений {count} (без --strict они не считаются провалом)",
    "point {index}: position or vector is not finite (kept)":
        "точка {index}: положение или вектор не конечны (сохранены)",
    "point {index}: {what} {node} is not a node of the model ({count} nodes); {consequence}":
        "точка {index}: {what} {node} — не узел модели (узлов: {count}); {consequence}",
    "the point is not placed": "точка не размещена",
    "the point stays on its node": "точка остаётся на своём узле",
    "empty objects.rlb record name: the part is left out": "пустое имя записи objects.rlb: деталь пропущена",
    "{what} name has no NUL within its 32 bytes (read as 32 bytes)":
        "в 32 байтах имени ({what}) нет завершающего нуля (прочитано как 32 байта)",
    "hit points or density is not finite (kept)": "прочность или плотность не конечны (сохранены)",
    "record {name} slot {slot}: a name has no NUL within its 32 bytes (read as 32 bytes)":
        "запись {name}, слот {slot}: в 32 байтах имени нет завершающего нуля (прочитано как 32 байта)",
    ".cpt: {count} points name a {what} the model does not have (first {bad}; {nodes} nodes): {consequence}":
        ".cpt: точек, чей {what} не узел модели: {count} (первая {bad}; узлов: {nodes}): {consequence}",
    "no record {name} in objects.rlb: the part is left out": "в objects.rlb нет записи {name}: деталь пропущена",
    "component {component}: {what} {node} is not a node of the part ({count} nodes): {consequence}":
        "компонент {component}: {what} {node} — не узел детали (узлов: {count}): {consequence}",
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
    "{name} is shown beside the model (an effect's preview, a hall way or a ground plan), not a part of it: it is "
    "not exported as a mesh":
        "{name} показан рядом с моделью (предпросмотр эффекта, проходы или план здания) и не является её частью: "
        "он не экспортируется как меш",
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
    "{source} changed since the model was imported (another program wrote it): the edited state fields were "
    "written into it, the rest of it kept as it is now":
        "{source} изменён после импорта модели (его записала другая программа): изменённые поля состояний "
        "записаны в него, остальное сохранено как есть сейчас",
    "meshes {first} and {second} are on the same node and slot {slot}: join them or set msh_slot":
        "меши {first} и {second} на одном узле и в одном слоте {slot}: объедините их или задайте msh_slot",
    "node {handle}: the name {name} cannot be stored in code page 1251; rename it":
        "узел {handle}: имя {name} не записать в кодировке 1251; переименуйте его",
    "node {handle}: the name {name} is {size} bytes; MSH node names hold at most {limit}":
        "узел {handle}: имя {name} занимает {size:байт|байта|байт}; имена узлов MSH вмещают не больше {limit}",
    "material {name} would be WEAR row {index}; a batch names at most 256 materials":
        "материал {name} стал бы строкой WEAR {index}; пакет отрисовки называет не больше 256 материалов",
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
    "{name} is an instance of the collection {collection} (as the Asset Browser's Link places an asset), which "
    "cannot be exported: drag the asset in with the Import Method Append, and export that":
        "{name} — экземпляр коллекции {collection} (так ссылку на ассет ставит обозреватель ассетов), а экземпляр "
        "экспортировать нельзя: перетащите ассет с методом импорта «Добавить» и экспортируйте его",
    "node hierarchy has a cycle": "в иерархии узлов есть цикл",
    "it changed on disk after the export read it": "он изменился на диске после того, как экспорт его прочитал",
    "it changed on disk after the import read it (another program or export wrote it meanwhile); nothing was "
    "written: import it again, or export with Replace Changed Files to write over that change":
        "он изменился на диске после того, как импорт его прочитал (его записала другая программа или другой "
        "экспорт); ничего не записано: импортируйте его снова или экспортируйте с «Заменять изменённые файлы», "
        "чтобы записать поверх этого изменения",
    "it changed on disk after the export read it (another program or export wrote it meanwhile); nothing was "
    "written: export again":
        "он изменился на диске после того, как экспорт его прочитал (его записала другая программа или другой "
        "экспорт); ничего не записано: экспортируйте снова",
    "{where} changed on disk after the import (another program wrote it); nothing was written: import it again, "
    "or export with Replace Changed Files to write over that change":
        "{where} изменилась на диске после импорта (её записала другая программа); ничего не записано: "
        "импортируйте снова или экспортируйте с «Заменять изменённые файлы», чтобы записать поверх изменения",
    "{where} changed on disk after the import (another program wrote it) and nothing of the scene changes it: "
    "that change is kept":
        "{where} изменилась на диске после импорта (её записала другая программа), а сцена её не меняет: это "
        "изменение сохранено",
    "its entry {name}": "её запись {name}",
    "the model": "модель",
    "it holds {old}, and this export writes {new}: it was not replaced (nothing was written); choose another file":
        "в нём {old}, а этот экспорт пишет {new}: он не заменён (ничего не записано); выберите другой файл",
    "the file exists and is not one the export read or names: it was not replaced (nothing was written)":
        "файл существует, но экспорт его не читал и не называл: он не заменён (ничего не записано)",
    "another export has been writing it for over {seconds} s (or left {lock} beside it: remove that folder)":
        "другой экспорт пишет его уже дольше {seconds} с (или оставил рядом {lock}: удалите эту папку)",
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
    "{count} records for {vertices} vertices": "{count:запись|записи|записей} на {vertices:вершину|вершины|вершин}",
    "{count} names for {nodes} nodes": "{count:имя|имени|имён} на {nodes:узел|узла|узлов}",
    "{count} records for {nodes} nodes": "{count:запись|записи|записей} на {nodes:узел|узла|узлов}",
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
    "{size} bytes, more than the {limit} a game file can be": "{size:байт|байта|байт}, больше {limit}, чем может "
        "быть файл игры",
    "the same file as {other}": "тот же файл, что и {other}",
    "the file is read-only (force to replace it)": "файл только для чтения (замените его принудительно)",
    "is a folder; name the file to write": "это папка; укажите файл для записи",
    "not a regular file": "не обычный файл",
    "its folder {folder} is not writable": "в его папку {folder} нельзя писать",
    "No such file or directory (no folder {folder})": "Нет такого файла или каталога (нет папки {folder})",
    # a controller's findings, reported by the import, and its refusal
    "the controller cannot be played, so the model was imported without clips: {problem}. Fix the controller, "
    "or import with Clips: None":
        "контроллер нельзя проиграть, поэтому модель импортирована без клипов: {problem}. Исправьте контроллер "
        "или импортируйте с «Клипы: Нет»",
    "no controller ({where}): no clips were made": "нет контроллера ({where}): клипы не созданы",
    "{stem}{suffix} beside the model": "{stem}{suffix} рядом с моделью",
    "a CTLD entry named like the model, or the archive's only one":
        "запись CTLD с именем модели или единственная запись CTLD архива",
    "count B says {count} contacts per state, but there are no states: the count holds nothing":
        "число B обещает {count:контакт|контакта|контактов} на состояние, но состояний нет: число ничего не задаёт",
    # a material name the WEAR list cannot hold
    "material {name}: its name cannot be stored in code page 1251, as the game's material list needs (character "
    "{char} is not in it): rename the material":
        "материал {name}: его имя нельзя сохранить в кодовой странице 1251, а список материалов игры этого требует "
        "(символа {char} в ней нет): переименуйте материал",
    # maps and missions: core.map's reading errors and checks
    "required stream {stream} ({label}) is missing": "нет обязательного потока {stream} ({label})",
    "{size} bytes is not a whole number of {stride}-byte records ({label})":
        "{size:байт|байта|байт} — не целое число записей по {stride:байту|байта|байт} ({label})",
    "{size} bytes: not a {header}-byte header and whole {stride}-byte cell records":
        "{size:байт|байта|байт}: не заголовок в {header:байт|байта|байт} и целое число записей ячеек по "
        "{stride:байту|байта|байт}",
    "expected one entry of type {type}, found types {kinds}":
        "ожидалась одна запись типа {type}, найдены типы {kinds}",
    "{what} needs {size} bytes at byte {at}, only {left} remain":
        "{what}: нужно {size:байт|байта|байт} в байте {at}, осталось только {left}",
    "{what} needs {size} bytes, only {left} remain (at byte {at})":
        "{what}: нужно {size:байт|байта|байт}, осталось только {left} (в байте {at})",
    "{what} count {count} needs at least {size} bytes, only {left} remain (at byte {at})":
        "{what}: число {count} требует не меньше {size:байт|байта|байт}, осталось только {left} (в байте {at})",
    "{extra} bytes after the lookup grid (the game refuses a map it does not read to the end)":
        "{extra:байт|байта|байт} после сетки поиска (игра отвергает карту, которую не дочитала до конца)",
    "lookup cell {cell} starts past the end of the file": "ячейка поиска {cell} начинается за концом файла",
    "lookup cell {cell} runs past the end of the file": "ячейка поиска {cell} выходит за конец файла",
    "{rows} rows, Land1.wea has {count} (one microtexture material per Land1 material)":
        "строк: {rows}, в Land1.wea — {count} (по материалу микротекстуры на каждый материал Land1)",
    "{problem} ({count} records)": "{problem} (записей: {count})",
    "vertex index out of range ({count} vertices)": "индекс вершины вне диапазона (вершин: {count})",
    "vertex used by no face": "вершина не используется ни одной гранью",
    "stream order {order}, every retail map has {expected}":
        "порядок потоков {order}, у всех карт игры — {expected}",
    "attr1 says {said} records, the stream holds {count}": "attr1 говорит о {said:записи|записях|записях}, в потоке "
        "{count}",
    "attr3 (stride) is {attr3}, records are {size} bytes": "attr3 (шаг) равен {attr3}, записи по "
        "{size:байту|байта|байт}",
    "{count} records for {vertices} vertices (one per vertex)":
        "записей: {count} на {vertices:вершину|вершины|вершин} (нужна одна на вершину)",
    "name {name}, every terrain stream is named 'Land'": "имя {name}, все потоки ландшафта называются 'Land'",
    "{squares} squares do not make rows of attr2 = {across} cells":
        "{squares:квадрат|квадрата|квадратов} не складываются в ряды по attr2 = {across:ячейке|ячейки|ячеек}",
    "square header is not 0, 0xFFFF, 0, 0": "заголовок квадрата не 0, 0xFFFF, 0, 0",
    "square does not name exactly its level-0 cell i and level-1 cell squares + i":
        "квадрат называет не ровно свою ячейку уровня 0 (i) и уровня 1 (squares + i)",
    "{cells} cells, 2 x {squares} squares expected (two levels)":
        "ячеек: {cells}, ожидалось 2 x {squares:квадрат|квадрата|квадратов} (два уровня)",
    "run does not start where the previous cell's ends": "участок не начинается там, где кончается предыдущий",
    "runs cover {total} faces, the mesh has {count}": "участки покрывают {total:грань|грани|граней}, в сетке их "
        "{count}",
    "face has a vertex outside its cell's box by more than {slack} (0.1 % of cell 0's width; faces must not cross "
    "grid lines)":
        "у грани вершина вне рамки её ячейки больше чем на {slack} (0,1 % ширины ячейки 0; грани не должны "
        "пересекать линии сетки)",
    "level-0 cell and its level-1 twin have different boxes":
        "у ячейки уровня 0 и её двойника уровня 1 разные рамки",
    "header corners are not the corners of the mesh's bounding box":
        "углы в заголовке — не углы рамки всей сетки",
    "level-1 face uses a vertex no level-0 face uses (level 1 is built from level 0's vertices)":
        "грань уровня 1 использует вершину, которой нет у граней уровня 0 (уровень 1 строится из вершин уровня 0)",
    "{count} draw entries for {faces} faces (one per face)":
        "записей порядка отрисовки: {count} на {faces:грань|грани|граней} (нужна одна на грань)",
    "entry names a face outside its cell's run (order must keep cells whole)":
        "запись называет грань вне участка своей ячейки (порядок должен сохранять ячейки целыми)",
    "face drawn twice (not a permutation)": "грань рисуется дважды (не перестановка)",
    "batch bit 0x10 is not set exactly where a texture pair's run starts":
        "бит пакета 0x10 стоит не ровно там, где начинается участок пары текстур",
    "cell draws a texture pair in more than one run (pairs not grouped)":
        "ячейка рисует пару текстур больше чем одним участком (пары не сгруппированы)",
    "neighbour out of range ({count} faces)": "сосед вне диапазона (граней: {count})",
    "face is its own neighbour": "грань — сама себе сосед",
    "edge code (word 13) says 'none' where a neighbour is named, or the reverse":
        "код ребра (слово 13) говорит «нет» там, где сосед назван, или наоборот",
    "adjacency is not mutual: the neighbour's edge named by word 13 does not lead back":
        "соседство не взаимно: ребро соседа, названное словом 13, не ведёт обратно",
    "neighbour lies in the other level": "сосед лежит на другом уровне",
    "neighbour does not share the edge's two positions": "у соседа нет двух точек этого ребра",
    "flag 0x004 does not match 'has a second material' (word 2's high byte)":
        "флаг 0x004 не совпадает с «есть второй материал» (старший байт слова 2)",
    "face wears Land1 slot 0, the footing material the engine puts under buildings":
        "грань носит слот 0 Land1 — материал фундамента, который движок кладёт под здания",
    "water flag 0x008 and water surface 0x02 disagree": "флаг воды 0x008 и поверхность воды 0x02 расходятся",
    "water face's flags are not 0x608": "флаги грани воды не 0x608",
    "water vertices lie at {count} heights ({low} to {high}, more than {spread} apart); the engine keeps one water "
    "level":
        "вершины воды лежат на {count:высоте|высотах|высотах} (от {low} до {high}, разброс больше {spread}); движок "
        "хранит один уровень воды",
    "alpha is not 1.0 (within {slack}) on a vertex no two-material face uses":
        "альфа не 1.0 (с допуском {slack}) у вершины, которой не пользуется ни одна грань с двумя материалами",
    "areal has fewer than 3 vertices": "у ареала меньше 3 вершин",
    "edge link names no areal or no edge of it (-1/-1 on the boundary)":
        "ссылка ребра не называет ареал или его ребро (-1/-1 на границе)",
    "areal is its own neighbour": "ареал — сам себе сосед",
    "twin edge does not link back (links must be mutual)":
        "парное ребро не ссылается обратно (ссылки должны быть взаимны)",
    "lookup cell names an areal out of range ({count} areals)":
        "ячейка поиска называет ареал вне диапазона (ареалов: {count})",
    "{name} {found}; every retail mission has {value}": "{name} {found}; у всех миссий игры — {value}",
    "clan type {type} (0 nature, 1 player, 2 enemy, 3 neutral)":
        "тип клана {type} (0 природа, 1 игрок, 2 противник, 3 нейтральный)",
    "relation names clan {name}, which the mission lacks": "отношение называет клан {name}, которого нет в миссии",
    "marker word {marker}, every object has {expected}": "слово-метка {marker}, у всех объектов — {expected}",
    "kind {kind} (0 building, 1 unit, 2 vegetation, 3 rock)":
        "вид {kind} (0 здание, 1 юнит, 2 растительность, 3 камень)",
    "owner clan {clan} out of range ({count} clans)": "клан-владелец {clan} вне диапазона (кланов: {count})",
    "empty path: the object names no unit, building or STAT record":
        "пустой путь: объект не называет ни юнит, ни здание, ни запись STAT",
    "the mission names no map": "миссия не называет карту",
    "{count} bytes after the lode table (kept)": "{count:байт|байта|байт} после таблицы залежей (сохранены)",
    "material index beyond Land1.wea ({rows} rows)": "индекс материала за пределами Land1.wea (строк: {rows})",
    "no {name} in {folder}": "нет {name} в {folder}",
    "map path '{path}' names no map folder": "путь карты '{path}' не называет папку карты",
    "map '{path}': no folder holding Land.msh below {folder} or any folder above the mission":
        "карта '{path}': нет папки с Land.msh ни в {folder}, ни в одной папке выше миссии",
    "map '{path}': no folder holding Land.msh below any folder above the mission":
        "карта '{path}': нет папки с Land.msh ни в одной папке выше миссии",
    "position ({x}, {y}) lies outside the map's extent": "положение ({x}, {y}) вне пределов карты",
    "'{name}' not found below {root}": "'{name}' не найден в {root}",
    "{count} more objects name files not found below {root}":
        "ещё объектов, чьих файлов нет в {root}: {count}",
    "no objects.rlb below {root}": "нет objects.rlb в {root}",
    "no objects.rlb below {root}: {count} trees and rocks not checked":
        "нет objects.rlb в {root}: деревья и камни ({count}) не проверены",
    # the Export Unit edit cycle, hand-edited custom properties
    "the unit's collection names no source .dat (msh_unit): import the unit again":
        "коллекция юнита не указывает исходный .dat (msh_unit): импортируйте юнит снова",
    "cannot read the unit's source: {reason}; was it moved or deleted? Export Unit rewrites the .dat it was "
    "imported from: put it back, or import the unit again":
        "исходный файл юнита не читается: {reason}; его переместили или удалили? Экспорт юнита перезаписывает "
        ".dat, из которого юнит импортирован: верните файл на место или импортируйте юнит снова",
    "parts {first_part} and {second_part} are both component {component} (a copy, made with Shift+D?): Export Unit "
    "cannot add a part to the unit; delete the copy":
        "части {first_part} и {second_part} обе являются компонентом {component} (копия, сделанная Shift+D?): "
        "экспорт юнита не может добавить часть в юнит; удалите копию",
    "the .dat changed since the import: part {name} was component {component} ({display}), {now}; import the unit "
    "again":
        "после импорта .dat изменился: часть {name} была компонентом {component} ({display}), {now}; "
        "импортируйте юнит снова",
    "component {component} is now {display}": "компонент {component} теперь {display}",
    "it has only {count} components": "компонентов в нём теперь только {count}",
    "the target is {what}, one of the unit's inputs: Export Unit writes a unit tree (.dat); choose a .dat":
        "цель — {what}, один из входных файлов юнита: экспорт юнита пишет дерево юнита (.dat); выберите .dat",
    "the archive of part {name}": "архив части {name}",
    "the unit's records (objects.rlb)": "записи объектов (objects.rlb)",
    "the target exists and is not a unit tree: Export Unit replaces only a unit tree (.dat); choose another file":
        "цель существует и не является деревом юнита: экспорт юнита заменяет только дерево юнита (.dat); "
        "выберите другой файл",
    "component {component} ({display}) is no longer in the scene: the .dat keeps it and its archive entry is not "
    "changed (Export Unit does not remove parts; remove one from the .dat with another tool)":
        "компонента {component} ({display}) больше нет в сцене: .dat сохраняет его, а его запись в архиве не "
        "меняется (экспорт юнита не удаляет части; удалите часть из .dat другим инструментом)",
    "part {name}: {path} has no entry {entry} any more (the archive changed since the import); import the unit "
    "again":
        "часть {name}: в {path} больше нет записи {entry} (архив изменился после импорта); импортируйте юнит снова",
    "{name}: {path} has no entry {entry} any more; the part is not written":
        "{name}: в {path} больше нет записи {entry}; часть не записана",
    "part {name}: entry {entry} of {path} changed since the import (another tool, or another part of the same "
    "model, wrote it); import the unit again to edit it, or export with Replace Changed Files to write over that "
    "change":
        "часть {name}: запись {entry} в {path} изменилась после импорта (её записал другой инструмент или другая "
        "часть той же модели); чтобы править часть, импортируйте юнит снова или экспортируйте с параметром "
        "«Заменять изменённые файлы», чтобы записать поверх того изменения",
    "{name}: custom property {key} is {value}, not {wanted}; set it back, or import the model again":
        "{name}: пользовательское свойство {key} равно {value}, а должно быть {wanted}; верните прежнее значение "
        "или импортируйте модель снова",
    "a whole number": "целое число",
    "a whole number of at least {minimum}": "целое число не меньше {minimum}",
    "a list of names": "список имён",
    "the bytes the import stored": "байты, сохранённые импортом",
    "models {first_model} and {second_model} were imported from one entry of {path} and were edited differently; "
    "make the same edit on both":
        "модели {first_model} и {second_model} импортированы из одной записи {path} и изменены по-разному; "
        "сделайте одинаковое изменение в обеих",
    # two channels animating one node
    "channels {channel} and {other} both animate node {node}: the first one poses it and the other gets no slider "
    "(the sources do not say which the game uses)":
        "каналы {channel} и {other} оба анимируют узел {node}: позу задаёт первый, второй ползунка не получает "
        "(источники не говорят, какой берёт игра)",
    # renamed bones, shared controllers, deleted timelines
    "action {action} keys bone(s) {bones}, which {name} does not have (renamed?): those keys animate nothing and "
    "are not exported":
        "действие {action} содержит ключи костей {bones}, которых нет у {name} (переименованы?): эти ключи ничего "
        "не анимируют и не экспортируются",
    "no action animates {name} (its timeline action was deleted or unassigned), so the Action frame range is frame 0 "
    "alone, while the model's tracks and controller play frames 0..{last}: undo the deletion (Ctrl+Z) or assign "
    "the timeline action; to write the nodes still, as they show, choose Frame Range: Scene or Custom":
        "ни одно действие не анимирует {name} (действие временной шкалы удалено или не назначено), поэтому диапазон "
        "кадров «Действие» — один кадр 0, а дорожки модели и контроллер проигрывают кадры 0..{last}: отмените "
        "удаление (Ctrl+Z) или назначьте действие временной шкалы; чтобы записать узлы неподвижными, как они "
        "показаны, выберите Диапазон кадров: Сцена или Свой",
    "no action animates {name} (its timeline action was deleted or unassigned): its nodes are written still, as "
    "they show now; undo the deletion (Ctrl+Z) or assign the timeline action to keep the animation":
        "ни одно действие не анимирует {name} (действие временной шкалы удалено или не назначено): его узлы "
        "записаны неподвижными, как показаны сейчас; отмените удаление (Ctrl+Z) или назначьте действие временной "
        "шкалы, чтобы сохранить анимацию",
    "the timeline action of {name} was deleted: the node(s) are written still, as they show now, without their "
    "animation":
        "действие временной шкалы {name} удалено: узлы записаны неподвижными, как показаны сейчас, без анимации",
    "the exported frames 0..{end} end before the model's frame count {count}, and nodes left unchanged keep their "
    "tracks: the frame count is kept (the rewritten nodes hold their last exported pose after it)":
        "экспортируемые кадры 0..{end} кончаются раньше числа кадров модели {count}, а неизменённые узлы сохраняют "
        "свои дорожки: число кадров сохранено (переписанные узлы после него держат последнюю экспортированную позу)",
    "{where} is the controller of {models} too: the edited states ({properties}) change their clips as well":
        "{where} — контроллер и для {models}: изменённые состояния ({properties}) меняют и их клипы",
    # Parkan Map import and export
    "{count} vertex height(s) changed: face normals, vertex normals around them (an approximation: the game's "
    "formula is unknown), cell boxes and the header's corners recomputed":
        "изменена высота вершин: {count}; пересчитаны нормали граней, нормали вершин вокруг них (приближённо: "
        "формула игры неизвестна), габариты ячеек и углы заголовка",
    "{count} vertices where the map has {total}: only heights (z) can be edited, not the number of vertices":
        "вершин {count}, а в карте {total}: править можно только высоты (z), но не число вершин",
    "{count} vertex(es) moved across (x, y): only heights (z) can be edited (UVs, cells and Land.map follow x and y)":
        "вершин сдвинуто по x, y: {count}; править можно только высоты (z) (UV, ячейки и Land.map зависят от x и y)",
    "a vertex index past the last vertex": "индекс вершины за последней вершиной",
    "water vertices moved: Land.map is kept as it was, and its lakes may no longer match the water":
        "вершины воды сдвинуты: Land.map сохранён как был, и его озёра могут больше не совпадать с водой",
    "Land.map is kept as it was (no source says how it is built); after a height edit its areals keep their old "
    "heights":
        "Land.map сохранён как был (ни один источник не описывает, как он строится); после правки высот его "
        "ареалы сохраняют старые высоты",
    "object {index} starts inside building {host}, which the mission no longer has":
        "объект {index} начинает внутри здания {host}, которого в миссии больше нет",
    "object-record version {version} has no clan field: the object cannot change clans":
        "в версии записей объектов {version} нет поля клана: объект не может сменить клан",
    "{count} maps in the scene: select an object of the one to export":
        "в сцене карт: {count}; выделите объект той, которую нужно экспортировать",
    "no map to export: import one with File > Import > Parkan Map":
        "нет карты для экспорта: импортируйте её через Файл > Импорт > Карта «Паркана»",
    "what can be edited: the heights (z) of the ground's level-0 vertices, the second material's alpha "
    "(msh_second_alpha), and the mission's objects (moved, turned, copied, deleted, moved to another clan's "
    "collection, shown as another kind of the same sort; new instances of a kind in a clan's collection)":
        "что можно править: высоты (z) вершин уровня 0 земли, альфу второго материала (msh_second_alpha) и "
        "объекты миссии (перемещение, поворот, копирование, удаление, перенос в коллекцию другого клана, показ "
        "другим видом того же рода; новые экземпляры вида в коллекции клана)",
    "{name} was moved, turned or scaled as an object: move its vertices instead; {rest}":
        "{name} перемещён, повёрнут или масштабирован как объект: перемещайте вместо этого его вершины; {rest}",
    "{name} has {count} vertices and {faces} faces, the map {total} and {total_faces}: the topology cannot be "
    "edited; {rest}":
        "у {name} вершин {count} и граней {faces}, в карте {total} и {total_faces}: топологию править нельзя; "
        "{rest}",
    "{name}: faces were added, removed or reconnected: the topology cannot be edited; {rest}":
        "{name}: грани добавлены, удалены или соединены иначе: топологию править нельзя; {rest}",
    "{name}: face {index} (and {count} more) wears another material than the map gives it: face materials cannot "
    "be changed yet; {rest}":
        "{name}: у грани {index} (и ещё {count}) другой материал, чем в карте: материалы граней пока менять "
        "нельзя; {rest}",
    "the map's level-0 ground object was deleted: undo it (Ctrl+Z) or import the map again; {rest}":
        "объект земли уровня 0 удалён: отмените это (Ctrl+Z) или импортируйте карту заново; {rest}",
    "the map's level-1 ground object (the far-away ground, in the hidden collection) was deleted: the map needs "
    "both levels; undo it (Ctrl+Z) or import the map again; {rest}":
        "объект земли уровня 1 (дальняя земля в скрытой коллекции) удалён: карте нужны оба уровня; отмените это "
        "(Ctrl+Z) или импортируйте карту заново; {rest}",
    "{name} is in {count} clan collections: put it in exactly one; {rest}":
        "{name} находится в коллекциях кланов: {count}; оставьте его ровно в одной; {rest}",
    "level 1 vertex {index} was moved apart from level 0: edit level 0 (both levels share the vertices); {rest}":
        "вершина {index} уровня 1 сдвинута отдельно от уровня 0: правьте уровень 0 (у уровней общие вершины); "
        "{rest}",
    "{name} was scaled: the game scales only trees and rocks; {rest}":
        "{name} масштабирован: игра масштабирует только деревья и камни; {rest}",
    "two objects hold level {level} of the ground ({name} is a copy): delete the copy; {rest}":
        "уровень {level} земли держат два объекта ({name} — копия): удалите копию; {rest}",
    "no Land1.wea beside Land.msh: the ground's materials are placeholders":
        "рядом с Land.msh нет Land1.wea: материалы земли — заглушки",
    "Imported {name}: {count} + {far} faces, {objects} object(s) of {kinds} kind(s)":
        "Импортирован {name}: граней {count} + {far}, объектов {objects}, видов {kinds}",
    "Imported {name}: {count} + {far} faces, {objects} object(s) of {kinds} kind(s), {empties} kind(s) shown as "
    "Empties":
        "Импортирован {name}: граней {count} + {far}, объектов {objects}, видов {kinds}, из них показаны "
        "пустышками: {empties}",
    "Wrote {count} file(s) of {name}, {unchanged} unchanged: {heights} height(s) changed, {objects} object(s) "
    "edited":
        "Записано файлов {name}: {count}, без изменений: {unchanged}; изменено высот: {heights}, изменено "
        "объектов: {objects}",
    "Imported {name} with {count} warning(s); first: {first}":
        "Импортирован {name}, предупреждений: {count}; первое: {first}",
    "{path}: objects[{index}]: '{name}' is shown as an Empty: {reason}":
        "{path}: objects[{index}]: «{name}» показан как пустышка: {reason}",
    # the map export through the one write path
    "vertex {index} and vertex {other} are one point of the ground, stored once per cell, and were moved to "
    "different heights ({height} and {other_height}): give them one height (the ground would crack between the "
    "cells)":
        "вершины {index} и {other} — одна точка земли, записанная для каждой ячейки, и они сдвинуты на разную "
        "высоту ({height} и {other_height}): задайте им одну высоту (иначе земля треснет между ячейками)",
    "vertex {index} was moved to ({position}), which is not a finite number (NaN or infinite): give it a height":
        "вершина {index} сдвинута в ({position}) — это не конечное число (NaN или бесконечность): задайте ей "
        "высоту",
    "vertex {index} was moved to ({position}), which is not a finite number (NaN or infinite); {count} more such "
    "vertices: give it a height":
        "вершина {index} сдвинута в ({position}) — это не конечное число (NaN или бесконечность); таких вершин "
        "ещё {count}: задайте ей высоту",
    "{count} twin vertex(es) moved with the vertices edited (a point on a cell's border is stored once per cell)":
        "вершин-двойников сдвинуто вместе с правленными: {count} (точка на границе ячеек записана для каждой "
        "ячейки)",
    "no {what}: the map has no ground": "нет {what}: у карты нет земли",
    "vertex position is not a finite number (NaN or infinite)":
        "положение вершины — не конечное число (NaN или бесконечность)",
    "{what} {values} is not finite (NaN or infinite); every retail object's transform is finite":
        "{what} {values} не конечно (NaN или бесконечность); у каждого объекта игры трансформация конечна",
    "this map was imported from its Land.msh alone, without a mission: it has no data.tma to write; export it to "
    "a Land.msh (or import the mission)":
        "эта карта импортирована из одного Land.msh, без миссии: записывать data.tma нечего; экспортируйте её в "
        "Land.msh (или импортируйте миссию)",
    "{name}: the face attribute {attribute} was removed or changed type; face flags cannot be edited: undo it "
    "(Ctrl+Z); {rest}":
        "{name}: атрибут граней {attribute} удалён или сменил тип; флаги граней править нельзя: отмените это "
        "(Ctrl+Z); {rest}",
    "{name}: face {index}'s attribute {attribute} was changed ({count} face(s)); face flags (water, bed, second "
    "material, lava) cannot be edited yet: undo it (Ctrl+Z); {rest}":
        "{name}: у грани {index} изменён атрибут {attribute} (граней: {count}); флаги граней (вода, дно, второй "
        "материал, лава) пока править нельзя: отмените это (Ctrl+Z); {rest}",
    "{name}: the UV map {layer} was removed or renamed; UV maps cannot be edited: undo it (Ctrl+Z); {rest}":
        "{name}: UV-развёртка {layer} удалена или переименована; UV-развёртки править нельзя: отмените это "
        "(Ctrl+Z); {rest}",
    "{name}: the UV map {layer} was edited (face {index}, {count} corner(s)); UVs follow x and y and cannot be "
    "edited: undo it (Ctrl+Z); {rest}":
        "{name}: UV-развёртка {layer} изменена (грань {index}, углов: {count}); UV следуют за x и y, их править "
        "нельзя: отмените это (Ctrl+Z); {rest}",
    "{name}: the point attribute {attribute} (the second material's alpha) was removed or changed type: undo it "
    "(Ctrl+Z); {rest}":
        "{name}: атрибут точек {attribute} (альфа второго материала) удалён или сменил тип: отмените это "
        "(Ctrl+Z); {rest}",
    "level 1 vertex {index}'s {attribute} was changed apart from level 0: edit level 0 (both levels share the "
    "vertices); {rest}":
        "у вершины {index} уровня 1 {attribute} изменён отдельно от уровня 0: правьте уровень 0 (у уровней общие "
        "вершины); {rest}",
    "{name}: {attribute} was changed, and this map has no alpha stream (Res14) to hold it: undo it (Ctrl+Z); "
    "{rest}":
        "{name}: {attribute} изменён, а в этой карте нет потока альфы (Res14) для него: отмените это (Ctrl+Z); "
        "{rest}",
    "{name} was moved or edited: it only shows the water level of the map's water faces and is not written; to "
    "change the water level, move the water faces' vertices (all to one height); put the plane back (Ctrl+Z); "
    "{rest}":
        "{name} перемещена или изменена: она лишь показывает уровень водных граней карты и не записывается; чтобы "
        "изменить уровень воды, сдвиньте вершины водных граней (все на одну высоту); верните плоскость (Ctrl+Z); "
        "{rest}",
    "{name} (and {count} more) was moved out of the map's collections ({map}) but is still in the scene: put it "
    "back into a clan's collection, or delete it; {rest}":
        "{name} (и ещё {count}) убран из коллекций карты ({map}), но остался в сцене: верните его в коллекцию "
        "клана или удалите; {rest}",
    "{name} is a placement of another imported map and was put into {clan}: move it back, or place an instance "
    "of a kind instead; {rest}":
        "{name} — объект другой импортированной карты, помещённый в {clan}: верните его обратно или поставьте "
        "вместо него экземпляр вида; {rest}",
    "{name} in {clan} is no object of the mission: a new object is an instance of a collection in the map's kinds "
    "collection (Add > Collection Instance); move it out of the clan collections; {rest}":
        "{name} в {clan} — не объект миссии: новый объект — это экземпляр коллекции из коллекции видов карты "
        "(Добавить > Экземпляр коллекции); уберите его из коллекций кланов; {rest}",
    "{name} was put into {clan}: data.tma gives {what} the index of a clan; put it in a clan's collection; {rest}":
        "{name} помещён в {clan}: data.tma даёт объекту ({what}) номер клана; поместите его в коллекцию клана; "
        "{rest}",
    "a unit or building": "юнит или здание",
    "an object": "объект",
    "{name} no longer shows its kind ({kind}): make it an instance of a collection of the map's kinds collection "
    "again; {rest}":
        "{name} больше не показывает свой вид ({kind}): снова сделайте его экземпляром коллекции из коллекции "
        "видов карты; {rest}",
    "{name} shows {shown}, which is not one of the map's kinds: a placement shows a collection of the kinds "
    "collection; {rest}":
        "{name} показывает {shown}, а это не вид карты: объект показывает коллекцию из коллекции видов; {rest}",
    "{name} shows {kind}, which no object of the mission names; {rest}":
        "{name} показывает {kind}, а его не называет ни один объект миссии; {rest}",
    "{name} was made a {kind} ({path}) from a {old}: a placement can show another kind of its own sort only; "
    "{rest}":
        "{name} превращён в {kind} ({path}) из {old}: объект может показывать другой вид только своего рода; "
        "{rest}",
    "{name} was scaled: this mission's objects have no scale; {rest}":
        "{name} масштабирован: у объектов этой миссии нет масштаба; {rest}",
    # Export Parkan Clips for Engines
    "no model with clips in the scene: import one as an armature with Clips: Actions or NLA Strips":
        "в сцене нет модели с клипами: импортируйте её арматурой с параметром «Клипы»: «Действия» или «Полосы NLA»",
    "FBX carries no material animation: {count} animated material(s) not written ({names})":
        "FBX не переносит анимацию материалов: не записано анимированных материалов: {count} ({names})",
    "Material Animation is off: {count} animated material(s) not written ({names})":
        "«Анимация материалов» выключена: не записано анимированных материалов: {count} ({names})",
    "the base colour of {count} material(s) is not animated in the file (Base Colour Animation is off: Blender's "
    "glTF importer cannot read it)":
        "базовый цвет материалов ({count}) в файле не анимирован («Анимация базового цвета» выключена: импортёр "
        "glTF в Blender не может её прочитать)",
    "Wrote {path}: {models} model(s), {animations} animation(s)":
        "Записан {path}: моделей: {models}, анимаций: {animations}",
    # ---- end of gltfclips' block
    # the asset library
    "{path}: not a folder": "{path}: это не папка",
    "{path}: the library must be a .blend file": "{path}: библиотека должна быть файлом .blend",
    "nothing to put in a library: no .msh/.rlb models or .dat units found in {path}":
        "в библиотеку нечего положить: в {path} нет моделей .msh/.rlb и юнитов .dat",
    "{path}: cannot read it as a library ({reason}): it was left as it is; remove it or choose another -o":
        "{path}: не удаётся прочитать как библиотеку ({reason}): файл оставлен как был; удалите его или выберите "
        "другой -o",
    "{path} is not an asset library this command wrote: it was left as it is; choose another -o":
        "{path} — не библиотека ассетов, записанная этой командой: файл оставлен как был; выберите другой -o",
    "cannot start a Blender process: {reason}": "не удаётся запустить процесс Blender: {reason}",
    "No asset library was written: {count} failure(s)": "Библиотека ассетов не записана: ошибок: {count}",
    "{path} is up to date: {count} asset(s)": "{path} не требует обновления: ассетов: {count}",
    "Wrote {path}: {made} asset(s) made, {kept} unchanged, {failed} failed":
        "Записан {path}: сделано ассетов: {made}, без изменений: {kept}, не удалось: {failed}",
    "The library run failed: {reason}": "Сборка библиотеки не удалась: {reason}",
    "{path}: cannot read it: {reason}: it was left as it is":
        "{path}: не удаётся прочитать: {reason}: файл оставлен как был",
    "{path}: another program wrote it during the run: it was left as that program wrote it; run again":
        "{path}: другая программа записала его во время работы: файл оставлен таким, каким она его записала; "
        "запустите снова",
    "{reason}; {path} was left as it was": "{reason}; {path} оставлен как был",
    # the import's key count
    "Animation: Faithful keys the nodes at more than {limit} node-frames, more than an import writes: import "
    "with Animation: Keys or For Editing":
        "Анимация «Точная» ставит ключи узлов более чем в {limit:узло-кадре|узло-кадрах|узло-кадрах}, больше, чем "
        "пишет импорт: "
        "импортируйте с анимацией «Ключи» или «Для правки»",
    "Animation: For Editing keys the nodes at more than {limit} node-frames, more than an import writes: import "
    "with Animation: Keys":
        "Анимация «Для правки» ставит ключи узлов более чем в {limit:узло-кадре|узло-кадрах|узло-кадрах}, больше, "
        "чем пишет импорт: "
        "импортируйте с анимацией «Ключи»",
    "Animation: Keys keys the nodes at more than {limit} node-frames, more than an import writes: import with "
    "Animation: None":
        "Анимация «Ключи» ставит ключи узлов более чем в {limit:узло-кадре|узло-кадрах|узло-кадрах}, больше, чем "
        "пишет импорт: "
        "импортируйте с анимацией «Нет»",
    # a u32 word kept in a custom property
    "property {key} on {name} holds {value}, not a 32-bit word":
        "свойство {key} у {name} содержит {value}, а не 32-битное слово",
    # a unit posed as a whole
    "No part of {unit} has a clip {clip}": "Ни у одной части юнита {unit} нет клипа {clip}",
    # an object of the model left in Edit Mode while another object is active
    "object {name} is in Edit Mode but is not the active object: leave its Edit Mode (or make it active) and try "
    "again":
        "объект {name} в режиме правки, но не активен: выйдите из его режима правки (или сделайте его активным) "
        "и повторите",
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
def _patterns() -> tuple[tuple[str, re.Pattern, str], ...]:
    """Each report template as its longest fixed words (a cheap first test) and a regular expression whose
    groups are its fields; longest templates first."""
    out = []
    for template in sorted(REPORTS, key=len, reverse=True):
        parts = re.split(r"\{(\w+)\}", template)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>{FREE if p in FREE_FIELDS else FIELD})"
                        for i, p in enumerate(parts))
        out.append((max(parts[::2], key=len), re.compile(regex, re.DOTALL), template))
    return tuple(out)


def _translate(english: str) -> str:
    return bpy.app.translations.pgettext_rpt(english)


# The slots a model has, as io_msh.imp.plan.describe_slots lists them: "Damage Stage 0 (LOD 0, 1, First-Person),
# Damage Stage 1 (LOD 0)" (its commas are no list of reports).
SLOT_LIST = re.compile(r"Damage Stage \d+ \(LOD [^()]*\)(?:, Damage Stage \d+ \(LOD [^()]*\))*")
SLOT_STAGE = re.compile(r"Damage Stage (\d+) \(LOD ([^()]*)\)")


def _slot_list(value: str) -> str:
    """A list of slots in the interface language: each stage with its LODs, First-Person as the panel names it."""
    stage_word, first_person = _translate("Damage Stage"), _translate("First-Person")
    if stage_word == "Damage Stage":  # the interface is in English
        return value

    def lods(text: str) -> str:
        return ", ".join(f"«{first_person.lower()}»" if n == "First-Person" else n for n in text.split(", "))
    return SLOT_STAGE.sub(lambda m: f"{stage_word.lower()} {m.group(1)} (LOD {lods(m.group(2))})", value)


def _value_text(value: str, depth: int) -> str:
    """A template's field: itself a report (a reason, a slot's name), or a list of them; a name or number kept."""
    if " " not in value:
        return value
    if SLOT_LIST.fullmatch(value):
        return _slot_list(value)
    text = report_text(value, depth)
    if text == value and ", " in value:
        return ", ".join(report_text(part, depth) for part in value.split(", "))
    return text


def report_text(message: str, depth: int = 0) -> str:
    """One report line in the interface language: a known template's fixed words translated, its variable parts
    kept (and themselves translated where they are reports too); a file name or place before ``: `` kept."""
    if depth > 4:
        return message
    for words, pattern, template in _patterns():
        match = words in message and pattern.fullmatch(message)
        if match:
            values = {k: _value_text(v, depth + 1) for k, v in match.groupdict().items()}
            return filled(_translate(template), values)
    finding = FINDING.fullmatch(message)
    if finding:
        head, severity, text = finding.group("head", "severity", "message")
        return f"{head}{_translate(severity)}: {report_text(text, depth + 1)}"
    head, sep, rest = message.partition(": ")
    if sep and rest:
        return f"{head}{sep}{report_text(rest, depth + 1)}"
    return message


def plural_form(value: str, forms: list[str]) -> str:
    """The Russian form of a noun after the number ``value``: ``forms`` are the one, few and many forms (модель,
    модели, моделей: 1, 21 модель; 2, 3, 4, 22 модели; 5, 11, 12, 25 моделей); a fraction takes the few form."""
    digits = value.replace(",", "").replace(" ", "").replace("\u00a0", "").lstrip("-")
    if not digits.isdigit():
        return forms[1] if re.fullmatch(r"\d+[.,]\d+", digits) else forms[-1]
    n = int(digits)
    if n % 10 == 1 and n % 100 != 11:
        return forms[0]
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return forms[1]
    return forms[2]


class _PluralFormatter(string.Formatter):
    """``str.format`` where a field ``{count:одна|две|пять}`` gives the number and the noun form it takes."""

    def format_field(self, value, format_spec: str):
        if "|" in format_spec:
            forms = format_spec.split("|")
            return f"{value} {plural_form(str(value), forms)}"
        return super().format_field(value, format_spec)


_FORMATTER = _PluralFormatter()


def filled(template: str, values: dict) -> str:
    """A report template with its fields put in; a Russian count field (``{count:модель|модели|моделей}``) with
    the noun in the form its number takes."""
    return _FORMATTER.format(template, **values)


def report(operator, level: str, message: str) -> None:
    """An operator report, one per line, printable (file names may hold bytes that are not UTF-8), in the
    interface language."""
    from ...core.errors import printable

    for line in message.splitlines() or [""]:
        operator.report({level}, report_text(printable(line)))


def exported(operator, path: str, export):
    """``export()``'s result, its warnings reported; None, the error reported, when the export refused (a
    FormatError) or could not write its file (an OSError)."""
    from ...core.disk import recovery_notes
    from ...core.errors import FormatError, printable

    try:
        result = export()
    except FormatError as exc:
        report(operator, "ERROR", exc.describe(path))
        return None
    except OSError as exc:
        report(operator, "ERROR", f"{printable(str(exc.filename or path))}: cannot write: {exc.strerror or exc}")
        return None
    finally:
        for note in recovery_notes():  # a set of files a killed export left half written, put back by a read
            report(operator, "WARNING", note)
    for line in result.warnings:
        report(operator, "WARNING", line)
    return result
